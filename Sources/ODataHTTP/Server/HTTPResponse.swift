/// A response to send: status, header fields and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    /// The body as an array. A lent body (`lentBody`) is copied out by the getter; the server
    /// sends it from its own storage.
    public var body: [UInt8] {
        get { lentBody.map { Array($0.bytes) } ?? arrayBody }
        set {
            arrayBody = newValue
            lentBody = nil
        }
    }
    /// The body when it stays in the storage it was written to (see `LentBody`).
    public private(set) var lentBody: (any LentBody)?
    private var arrayBody: [UInt8]
    /// When set, the response may be sent only once the hold is released (see `ResponseHold`);
    /// whoever sends it must honour that, or call `settled()` first.
    public var hold: ResponseHold?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.arrayBody = body
    }

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: body)
    }

    /// A response whose body is sent from `body`'s own storage, without a copy.
    public init(status: Int, headers: [(String, String)], lending body: any LentBody) {
        self.init(status: status, headers: headers)
        lentBody = body
    }

    /// The length of the body, without copying a lent one.
    public var bodyCount: Int { lentBody?.bytes.count ?? arrayBody.count }

    public func header(_ name: String) -> String? {
        // By index, as `HTTPRequest.header` does.
        for index in headers.indices where ASCIICase.equalIgnoringCase(headers[index].0, name) {
            return headers[index].1
        }
        return nil
    }
}

/// A body in storage of its own (a serializer's buffer), which the server lends to
/// libmicrohttpd as it is. The storage must not change, and stays alive as long as the object.
public protocol LentBody: AnyObject, Sendable {
    var bytes: UnsafeBufferPointer<UInt8> { get }
}
