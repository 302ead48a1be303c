/// A request as the server received it: nothing decoded or interpreted yet.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target exactly as sent: path and query, still percent-encoded.
    public var target: String
    /// Header fields with lower-cased names; a repeated field keeps its first value.
    public var headers: [String: String]
    public var body: [UInt8]

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = []) {
        self.method = method
        self.target = target
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? { headers[ASCIICase.lowercased(name)] }

    /// The path part of the target (before `?`).
    public var path: Substring {
        queryMark.map { target[..<$0] } ?? Substring(target)
    }

    /// The query part of the target (after `?`), empty when there is none.
    public var query: Substring {
        queryMark.map { target[target.index(after: $0)...] } ?? ""
    }

    /// Searched as bytes: a Character search would segment graphemes on every request.
    private var queryMark: String.Index? {
        target.utf8.firstIndex(of: UInt8(ascii: "?"))
    }
}
