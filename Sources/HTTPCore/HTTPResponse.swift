/// A response to send: status, header fields and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    /// The body as an array. A lent body (`lentBody`) is copied out by the getter; the server
    /// sends it from its own storage.
    public var body: [UInt8] {
        get {
            switch content {
            case .array(let bytes): bytes
            case .lent(let lent): Array(lent.bytes)
            }
        }
        set { content = .array(newValue) }
    }
    /// The body when it stays in the storage it was written to (see `LentBody`).
    public var lentBody: (any LentBody)? {
        if case .lent(let lent) = content { return lent }
        return nil
    }
    /// One of the two, not both: a smaller response to move along on every request.
    private var content: Content

    private enum Content {
        case array([UInt8])
        case lent(any LentBody)
    }
    /// The ETag header field, kept apart from `headers` so that a response with one can still
    /// share a constant header list: an entity's answer built a list of five fields, and
    /// destroyed it field by field, on every request. Sent after `headers`; `header("ETag")`
    /// finds it.
    public var entityTag: EntityTagValue?
    /// `entityTag` as text.
    public var etag: String? {
        get { entityTag?.text }
        set { entityTag = newValue.map(EntityTagValue.text) }
    }
    /// When set, the response may be sent only once the hold is released (see `ResponseHold`);
    /// whoever sends it must honour that, or call `settled()` first.
    public var hold: ResponseHold?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.content = .array(body)
    }

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: body)
    }

    /// A response whose body is sent from `body`'s own storage, without a copy.
    public init(status: Int, headers: [(String, String)], lending body: any LentBody) {
        self.init(status: status, headers: headers)
        content = .lent(body)
    }

    /// The length of the body, without copying a lent one.
    public var bodyCount: Int {
        switch content {
        case .array(let bytes): bytes.count
        case .lent(let lent): lent.bytes.count
        }
    }

    public func header(_ name: String) -> String? {
        // By index, as `HTTPRequest.header` does.
        for index in headers.indices where ASCIICase.equalIgnoringCase(headers[index].0, name) {
            return headers[index].1
        }
        if let etag, ASCIICase.equalIgnoringCase("ETag", name) { return etag }
        return nil
    }

    /// Every header field, `etag` included, in the order they are sent.
    public var allHeaders: [(String, String)] { etag.map { headers + [("ETag", $0)] } ?? headers }
}

extension HTTPResponse {
    /// The response as bytes on the wire, ending its connection: for an answer sent before a
    /// request was read, where libmicrohttpd does not send it (`HTTPServer.Configuration.refusalAtLimit`).
    var closingBytes: [UInt8] {
        var head = "HTTP/1.1 \(status) \(Self.reasonPhrase(status))\r\n"
        for (name, value) in allHeaders { head += "\(name): \(value)\r\n" }
        head += "Connection: close\r\nContent-Length: \(bodyCount)\r\n\r\n"
        return Array(head.utf8) + body
    }

    /// The reason phrase of the statuses a server answers before a request is read; others
    /// have none (RFC 9112 section 4 allows it empty).
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 403: "Forbidden"
        case 408: "Request Timeout"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: ""
        }
    }
}

