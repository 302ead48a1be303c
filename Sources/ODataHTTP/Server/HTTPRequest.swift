#if canImport(Glibc)
import Glibc
#endif

/// A request as the server received it: nothing decoded or interpreted yet.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target's bytes exactly as received: path and query, still percent-encoded.
    /// Bytes rather than a String: the server copies them into storage it keeps for its
    /// connection, where making a String of each new target (an allocation, a UTF-8 check and
    /// a free) cost about 600 instructions more of a `Person(n)` (callgrind); the service finds
    /// a target it has parsed before by these bytes.
    public let targetBytes: [UInt8]
    /// Header fields in the order received, names lower-cased. A list, not a dictionary: a
    /// request carries a handful of fields, and hashing each name cost more than the search.
    public let headerFields: [(name: String, value: String)]
    public var body: [UInt8]
    /// The client's address (`192.0.2.1:5000`), when the server records it for an access log.
    public var clientAddress: String?
    /// Set when the server refused the request on its head: the handler answers with this
    /// error, and reads nothing else of the request.
    public var framingViolation: FramingViolation?

    public init(method: String, target: String, headerFields: [(name: String, value: String)], body: [UInt8] = []) {
        self.init(method: method, targetBytes: Array(target.utf8), headerFields: headerFields,
                  knownFields: KnownHeader.positions(in: headerFields), body: body)
    }

    /// With `knownFields` already found (`KnownHeader.positions(in: headerFields)`): the server
    /// keeps them with a connection's fields, which a keep-alive client sends unchanged.
    init(method: String, targetBytes: [UInt8], headerFields: [(name: String, value: String)], knownFields: SIMD16<UInt8>, body: [UInt8]) {
        self.method = method
        self.targetBytes = targetBytes
        self.headerFields = headerFields
        self.body = body
        pathLength = targetBytes.withUnsafeBufferPointer { bytes in bytes.firstIndex(of: UInt8(ascii: "?")) } ?? targetBytes.count
        self.knownFields = knownFields
    }

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.init(method: method, target: target,
                  headerFields: headers.map { (ASCIICase.lowercased($0.key), $0.value) }, body: body)
    }

    /// The first value of the field `name` (any case).
    public func header(_ name: String) -> String? {
        // By index: `first(where:)` copied each (name, value) tuple through the generic tuple
        // witnesses, a retain and release per string, on every lookup of every request.
        for index in headerFields.indices where ASCIICase.equalIgnoringCase(headerFields[index].name, name) {
            return headerFields[index].value
        }
        return nil
    }

    /// The first value of a field the service reads for most requests, found when the request
    /// was made: the service asks for several of them per request, and comparing names case-
    /// insensitively for each was about 1,800 instructions of a `Person(n)` (callgrind).
    public func header(_ known: KnownHeader) -> String? {
        let position = knownFields[known.rawValue]
        guard position != KnownHeader.absent else {
            // Positions are bytes: past the 255th field only the search by name finds one.
            return headerFields.count > Int(KnownHeader.absent) ? header(known.name) : nil
        }
        return headerFields[Int(position)].value
    }

    /// The request target as text (bytes that are not UTF-8 repaired), made on each call: for
    /// what is done once, such as a first parse, a next link or a log line.
    public var target: String { String(decoding: targetBytes, as: UTF8.self) }

    /// The path part of the target (before `?`).
    public var path: Substring { pathAndQuery.path }

    /// The query part of the target (after `?`), empty when there is none.
    public var query: Substring { pathAndQuery.query }

    /// `target` cut at its first `?` (searched in the text: repairing bytes that are not UTF-8
    /// may have moved it from where `pathLength` counts it). Each call makes `target` anew, so
    /// a caller that needs both parts takes them from one call.
    public var pathAndQuery: (path: Substring, query: Substring) {
        let target = target
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (Substring(target), "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// Whether the path is `root` itself or below it (`root/...`). Compared as bytes, in place:
    /// the path as a `Substring` and a character-wise comparison cost a few hundred
    /// instructions of every request.
    public func pathIsBelow(_ root: String) -> Bool {
        let rootLength = root.utf8.count
        guard pathLength >= rootLength else { return false }
        return targetBytes.withUnsafeBufferPointer { path in
            let below = root.utf8.withContiguousStorageIfAvailable { wanted in
                rootLength == 0 || memcmp(path.baseAddress!, wanted.baseAddress!, rootLength) == 0
            } ?? path.starts(with: root.utf8)
            return below && (pathLength == rootLength || path[rootLength] == UInt8(ascii: "/"))
        }
    }

    /// The length of the path in bytes: up to the first `?`, or the whole target.
    private let pathLength: Int
    /// Where in `headerFields` each `KnownHeader` is first, by its raw value. A vector of
    /// bytes rather than an array: copying a request copies it without reference counting.
    private let knownFields: SIMD16<UInt8>
}

/// The request header fields the service reads for most requests, and Content-Length, which
/// the server reads for each.
public enum KnownHeader: Int, CaseIterable, Sendable {
    case accept, host, dataServiceVersion, maxDataServiceVersion, ifMatch, ifNoneMatch, origin
    case contentType, xHTTPMethod, accessControlRequestHeaders, contentLength

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
        case .contentLength: "content-length"
        }
    }

    /// A position in `knownFields` meaning "not sent".
    static let absent = UInt8.max

    /// The known header named `name` (lower-cased), if it is one: by length first, so that most
    /// names are told apart without comparing text.
    static func named(_ name: String) -> KnownHeader? {
        switch name.utf8.count {
        case 4: return name == "host" ? .host : nil
        case 6: return name == "accept" ? .accept : name == "origin" ? .origin : nil
        case 8: return name == "if-match" ? .ifMatch : nil
        case 12: return name == "content-type" ? .contentType : nil
        case 13: return name == "if-none-match" ? .ifNoneMatch : name == "x-http-method" ? .xHTTPMethod : nil
        case 14: return name == "content-length" ? .contentLength : nil
        case 18: return name == "dataserviceversion" ? .dataServiceVersion : nil
        case 21: return name == "maxdataserviceversion" ? .maxDataServiceVersion : nil
        case 30: return name == "access-control-request-headers" ? .accessControlRequestHeaders : nil
        default: return nil
        }
    }

    static func positions(in fields: [(name: String, value: String)]) -> SIMD16<UInt8> {
        var positions = SIMD16<UInt8>(repeating: absent)
        for index in fields.indices.prefix(Int(absent)) {
            if let known = named(fields[index].name), positions[known.rawValue] == absent {
                positions[known.rawValue] = UInt8(index)
            }
        }
        return positions
    }
}
