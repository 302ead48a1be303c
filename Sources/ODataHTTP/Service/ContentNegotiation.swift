import Foundation
import ODataURI

/// Which representation a request gets, from `$format` first and the Accept header second.
/// The gateway serves verbose JSON for data, XML for `$metadata` and the service document, and
/// plain text for `$count` and `$value`; Atom feeds are not served.
enum ContentNegotiation {
    enum Representation: Equatable {
        case json
        case xml
    }

    /// The media ranges of an Accept header with a non-zero quality, lower-cased.
    static func acceptedRanges(_ accept: String?) -> [String] {
        guard let accept, !accept.trimmingCharacters(in: .whitespaces).isEmpty else { return ["*/*"] }
        return accept.split(separator: ",").compactMap { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let range = parts.first, !range.isEmpty else { return nil }
            if parts.dropFirst().contains(where: { $0.replacingOccurrences(of: " ", with: "").hasPrefix("q=0") && Double($0.dropFirst(2)) == 0 }) {
                return nil
            }
            return range
        }
    }

    static func accepts(_ ranges: [String], _ mediaType: String) -> Bool {
        let major = mediaType.split(separator: "/").first.map(String.init) ?? ""
        return ranges.contains { $0 == "*/*" || $0 == mediaType || $0 == major + "/*" }
    }

    /// Data (entities, properties, links): JSON, or 406.
    static func forData(format: QueryOptions.Format?, accept: String?) throws(ServiceError) -> Representation {
        switch format {
        case .json?: return .json
        case .atom?, .xml?: throw .notAcceptable("Atom and XML payloads are not supported; this service answers data in JSON ($format=json or Accept: application/json)")
        case nil: break
        }
        let ranges = acceptedRanges(accept)
        if accepts(ranges, "application/json") || ranges.contains("application/json;odata=verbose") { return .json }
        throw .notAcceptable("none of the media types in Accept (\(accept ?? "")) is supported; this service answers data in application/json")
    }

    /// The service document: XML (AtomPub) by default, JSON when asked for.
    static func forServiceDocument(format: QueryOptions.Format?, accept: String?) throws(ServiceError) -> Representation {
        switch format {
        case .json?: return .json
        case .xml?, .atom?: return .xml
        case nil: break
        }
        let ranges = acceptedRanges(accept)
        if ranges.contains("application/json") { return .json }
        if accepts(ranges, "application/atomsvc+xml") || accepts(ranges, "application/xml") { return .xml }
        if accepts(ranges, "application/json") { return .json }
        throw .notAcceptable("the service document is available as application/atomsvc+xml, application/xml or application/json")
    }

    // $metadata, $count and $value have one representation each (XML, text) and are served in
    // it whatever Accept says: clients that send `Accept: application/json` for every request
    // (as the blog's RestConnection does) still get them.
}
