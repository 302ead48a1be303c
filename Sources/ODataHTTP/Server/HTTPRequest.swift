/// A request as the server received it: nothing decoded or interpreted yet.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target exactly as sent: path and query, still percent-encoded.
    public let target: String
    /// Header fields in the order received, names lower-cased. A list, not a dictionary: a
    /// request carries a handful of fields, and hashing each name cost more than the search.
    public var headerFields: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, target: String, headerFields: [(name: String, value: String)], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headerFields = headerFields
        self.body = body
        queryMark = HTTPRequest.queryMark(in: target)
    }

    /// Where `?` is in `target`, searched in the string's own bytes: the generic UTF-8 view
    /// search cost more than the rest of building the request.
    private static func queryMark(in target: String) -> String.Index? {
        let offset = target.utf8.withContiguousStorageIfAvailable { bytes in bytes.firstIndex(of: UInt8(ascii: "?")) }
            ?? target.utf8.firstIndex(of: UInt8(ascii: "?")).map { target.utf8.distance(from: target.startIndex, to: $0) }
        return offset.map { target.utf8.index(target.startIndex, offsetBy: $0) }
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

    /// The path part of the target (before `?`).
    public var path: Substring {
        queryMark.map { target[..<$0] } ?? Substring(target)
    }

    /// The query part of the target (after `?`), empty when there is none.
    public var query: Substring {
        queryMark.map { target[target.index(after: $0)...] } ?? ""
    }

    /// Where the query begins, found once (as bytes: a Character search would segment
    /// graphemes); the path and the query are asked for several times per request.
    private let queryMark: String.Index?
}
