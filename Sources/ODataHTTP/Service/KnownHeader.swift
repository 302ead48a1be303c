import HTTPCore

/// The request header fields the service reads for most requests: the server indexes them
/// (`ODataService.headerIndex`), so that each is found without a search by name.
public enum KnownHeader: Int, CaseIterable, Sendable {
    case accept, host, dataServiceVersion, maxDataServiceVersion, ifMatch, ifNoneMatch, origin
    case contentType, xHTTPMethod, accessControlRequestHeaders

    /// The name, lower-cased as `HTTPRequest.headerFields` keeps names.
    public var name: String {
        switch self {
        case .accept: "accept"
        case .host: "host"
        case .dataServiceVersion: "dataserviceversion"
        case .maxDataServiceVersion: "maxdataserviceversion"
        case .ifMatch: "if-match"
        case .ifNoneMatch: "if-none-match"
        case .origin: "origin"
        case .contentType: "content-type"
        case .xHTTPMethod: "x-http-method"
        case .accessControlRequestHeaders: "access-control-request-headers"
        }
    }
}

extension ODataService {
    /// The header fields to index for the service: give it to the server
    /// (`HTTPServer.Configuration.headerIndex`). Each `KnownHeader` has the slot of its raw value.
    public static let headerIndex = HeaderIndex(KnownHeader.allCases.map(\.name))
}

extension HTTPRequest {
    /// The first value of a field the service reads for most requests: found when the server
    /// made the request, when it indexed `ODataService.headerIndex`, else searched for by name.
    @inline(__always)
    public func header(_ known: KnownHeader) -> String? {
        header(slot: known.rawValue, name: known.name)
    }
}

extension HTTPServer.Configuration {
    /// Makes a server that serves an `ODataService` index the header fields it reads and refuse
    /// connections with OData errors.
    public mutating func configureForODataService() {
        headerIndex = ODataService.headerIndex
        (refusalAtLimit, refusalPerAddress) = ODataService.connectionRefusals
    }
}
