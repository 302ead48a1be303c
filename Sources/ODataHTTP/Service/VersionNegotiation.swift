import Foundation
import ODataSerialization

/// The DataServiceVersion rules of MS-ODATA 2.2.5.3 and 2.2.5.4: a request may not claim a
/// version above 2.0, and a response may not need a version above the request's
/// MaxDataServiceVersion.
enum VersionNegotiation {
    /// The major version of a header value such as `2.0;NetFx`, or nil when it is absent.
    static func version(_ header: String?) throws(ServiceError) -> Int? {
        guard let header else { return nil }
        let number = header.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        let parts = number.split(separator: ".", omittingEmptySubsequences: false)
        // Digits only: `Int` alone takes "-1" and "+2", which are no versions.
        let isNumber = { (part: Substring) in !part.isEmpty && part.count <= 4 && part.allSatisfy { $0.isASCII && $0.isNumber } }
        guard parts.count <= 2, parts.allSatisfy(isNumber), let major = Int(parts[0]), major >= 1 else {
            throw .badRequest("'\(header)' is not a valid data service version; send 1.0 or 2.0")
        }
        return major
    }

    static func checkRequest(dataServiceVersion: String?, maxDataServiceVersion: String?) throws(ServiceError) -> Int {
        if let requested = try version(dataServiceVersion), requested > 2 {
            throw .badRequest("Request version '\(dataServiceVersion!)' is not supported; the maximum DataServiceVersion this service supports is 2.0")
        }
        let maximum = try version(maxDataServiceVersion) ?? 2
        guard maximum >= 1 else { throw .badRequest("MaxDataServiceVersion '\(maxDataServiceVersion!)' is below 1.0") }
        return maximum
    }

    static func checkResponse(_ needed: ResponseVersion, maximum: Int) throws(ServiceError) {
        if needed.rawValue > maximum {
            throw .badRequest("The response requires DataServiceVersion \(needed.rawValue).0, but the request's MaxDataServiceVersion is \(maximum).0")
        }
    }
}
