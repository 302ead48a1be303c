/// A response to send: status, header fields and body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [(String, String)]
    public var body: [UInt8]
    /// When set, the response may be sent only once the hold is released (see `ResponseHold`);
    /// whoever sends it must honour that, or call `settled()` first.
    public var hold: ResponseHold?

    public init(status: Int, headers: [(String, String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public init(status: Int, contentType: String, body: [UInt8], headers: [(String, String)] = []) {
        self.init(status: status, headers: [("Content-Type", contentType)] + headers, body: body)
    }

    public func header(_ name: String) -> String? {
        // By index, as `HTTPRequest.header` does.
        for index in headers.indices where ASCIICase.equalIgnoringCase(headers[index].0, name) {
            return headers[index].1
        }
        return nil
    }
}
