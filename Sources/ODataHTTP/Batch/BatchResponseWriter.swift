/// Writes the multipart/mixed body that answers a batch (MS-ODATA 2.2.7.6.6), with CRLF line
/// breaks, a Content-Length on every operation response that has a body, and change-set
/// responses nested under their own boundary.
public struct BatchResponseWriter {
    public let boundary: String
    /// The parts written so far, without the close delimiter.
    public private(set) var bytes: [UInt8] = []
    /// The size the body is expected to stay within: its storage grows up to it rather than by
    /// doubling past it, so that a body near its limit does not hold twice the memory.
    private let expectedLimit: Int

    /// The boundary is random so that no body can contain it by accident.
    public init(boundary: String = BatchResponseWriter.makeBoundary(prefix: "batchresponse"), expectedLimit: Int = .max) {
        self.boundary = boundary
        self.expectedLimit = expectedLimit
    }

    /// The Content-Type header that names the boundary.
    public var contentType: String { "multipart/mixed; boundary=\(boundary)" }

    /// The bytes appending `part` would add.
    public func size(of part: BatchResponsePart) -> Int {
        var scratch = BatchResponseWriter(boundary: boundary)
        return scratch.write(part, bodies: false)
    }

    /// Writes `part` after those written so far.
    public mutating func append(_ part: BatchResponsePart) {
        let needed = bytes.count + size(of: part)
        if needed > bytes.capacity {
            bytes.reserveCapacity(max(needed, min(bytes.capacity * 2, expectedLimit)))
        }
        write(part, bodies: true)
    }

    /// The bytes of the close delimiter `finish` writes.
    public var closingSize: Int { boundary.utf8.count + 6 }

    /// The whole body: the parts and the close delimiter.
    public consuming func finish() -> [UInt8] {
        Self.append("--\(boundary)--\r\n", to: &bytes)
        return bytes
    }

    /// Writes the response body and returns it with the Content-Type header that names its boundary.
    public static func write(_ parts: [BatchResponsePart]) -> (contentType: String, body: [UInt8]) {
        var writer = BatchResponseWriter()
        for part in parts { writer.append(part) }
        return (writer.contentType, writer.finish())
    }

    /// Writes the body with the given boundary; change sets get fresh random boundaries.
    public static func write(_ parts: [BatchResponsePart], boundary: String) -> [UInt8] {
        var writer = BatchResponseWriter(boundary: boundary)
        for part in parts { writer.append(part) }
        return writer.finish()
    }

    /// Writes `part`, or only counts its bodies' bytes when not `bodies`; returns the bytes it adds.
    @discardableResult
    private mutating func write(_ part: BatchResponsePart, bodies: Bool) -> Int {
        let start = bytes.count
        var skipped = 0
        Self.append("--\(boundary)\r\n", to: &bytes)
        switch part {
        case .query(let response), .failedChangeSet(let response):
            skipped += Self.writeOperation(response, to: &bytes, body: bodies)
        case .changeSet(let responses):
            let changeSetBoundary = Self.makeBoundary(prefix: "changesetresponse")
            Self.append("Content-Type: multipart/mixed; boundary=\(changeSetBoundary)\r\n\r\n", to: &bytes)
            for response in responses {
                Self.append("--\(changeSetBoundary)\r\n", to: &bytes)
                skipped += Self.writeOperation(response, to: &bytes, body: bodies)
                Self.append("\r\n", to: &bytes)
            }
            Self.append("--\(changeSetBoundary)--", to: &bytes)
        }
        Self.append("\r\n", to: &bytes)
        return bytes.count - start + skipped
    }

    /// An `application/http` part: MIME headers, blank line, status line, headers, body. The
    /// line break that follows belongs to the next delimiter and is written by the caller.
    /// Without `body`, the body is left out and its length returned, for `size(of:)`.
    private static func writeOperation(_ response: BatchOperationResponse, to out: inout [UInt8], body: Bool) -> Int {
        append("Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n", to: &out)
        if let id = response.contentID, response.contentIDLocation == .partHeader {
            append("Content-ID: \(id)\r\n", to: &out)
        }
        append("\r\nHTTP/1.1 \(response.statusCode) \(reasonPhrase(for: response.statusCode))\r\n", to: &out)
        if let id = response.contentID, response.contentIDLocation == .requestHeader {
            append("Content-ID: \(id)\r\n", to: &out)
        }
        var headers = response.headers
        headers.remove("Content-Length")
        headers.remove("Content-ID")
        for field in headers {
            append("\(field.name): \(field.value)\r\n", to: &out)
        }
        // 1xx, 204 and 304 responses carry no body and no Content-Length (RFC 9110 8.6).
        let bodyless = response.statusCode < 200 || response.statusCode == 204 || response.statusCode == 304
        if !bodyless {
            append("Content-Length: \(response.body.count)\r\n", to: &out)
        }
        append("\r\n", to: &out)
        guard !bodyless else { return 0 }
        guard body else { return response.body.count }
        out.append(contentsOf: response.body)
        return 0
    }

    /// `prefix_` and 32 random hex digits, in the style of WCF Data Services' boundaries.
    public static func makeBoundary(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let digits = Array("0123456789abcdef")
        var text = prefix + "_"
        for index in 0..<32 {
            if [8, 12, 16, 20].contains(index) { text.append("-") }
            text.append(digits[Int(generator.next() % 16)])
        }
        return text
    }

    /// The reason phrases of the status codes an OData service answers with.
    public static func reasonPhrase(for status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 202: return "Accepted"
        case 204: return "No Content"
        case 304: return "Not Modified"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 405: return "Method Not Allowed"
        case 406: return "Not Acceptable"
        case 409: return "Conflict"
        case 412: return "Precondition Failed"
        case 413: return "Content Too Large"
        case 415: return "Unsupported Media Type"
        case 500: return "Internal Server Error"
        case 501: return "Not Implemented"
        case 503: return "Service Unavailable"
        default: return "Status \(status)"
        }
    }

    private static func append(_ text: String, to out: inout [UInt8]) {
        out.append(contentsOf: text.utf8)
    }
}
