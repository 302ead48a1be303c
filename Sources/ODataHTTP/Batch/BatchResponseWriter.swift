/// Writes the multipart/mixed body that answers a batch (MS-ODATA 2.2.7.6.6), with CRLF line
/// breaks, a Content-Length on every operation response that has a body, and change-set
/// responses nested under their own boundary.
public enum BatchResponseWriter {
    /// Writes the response body and returns it with the Content-Type header that names its
    /// boundary. The boundaries are random so that no body can contain them by accident.
    public static func write(_ parts: [BatchResponsePart]) -> (contentType: String, body: [UInt8]) {
        let boundary = makeBoundary(prefix: "batchresponse")
        return ("multipart/mixed; boundary=\(boundary)", write(parts, boundary: boundary))
    }

    /// Writes the body with the given boundary; change sets get fresh random boundaries.
    public static func write(_ parts: [BatchResponsePart], boundary: String) -> [UInt8] {
        var out: [UInt8] = []
        for part in parts {
            append("--\(boundary)\r\n", to: &out)
            switch part {
            case .query(let response), .failedChangeSet(let response):
                writeOperation(response, to: &out)
            case .changeSet(let responses):
                let changeSetBoundary = makeBoundary(prefix: "changesetresponse")
                append("Content-Type: multipart/mixed; boundary=\(changeSetBoundary)\r\n\r\n", to: &out)
                for response in responses {
                    append("--\(changeSetBoundary)\r\n", to: &out)
                    writeOperation(response, to: &out)
                    append("\r\n", to: &out)
                }
                append("--\(changeSetBoundary)--", to: &out)
            }
            append("\r\n", to: &out)
        }
        append("--\(boundary)--\r\n", to: &out)
        return out
    }

    /// An `application/http` part: MIME headers, blank line, status line, headers, body. The
    /// line break that follows belongs to the next delimiter and is written by the caller.
    private static func writeOperation(_ response: BatchOperationResponse, to out: inout [UInt8]) {
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
        if !bodyless { out.append(contentsOf: response.body) }
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
