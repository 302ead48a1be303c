/// The Content-Type a write body must have (415 otherwise): JSON for entities, properties and
/// links (this service reads verbose JSON, not Atom), plain text or bytes for a raw `$value`.
/// A body without a Content-Type is taken as what the resource expects.
enum RequestBodyType {
    /// `application/json` with any parameters (`;odata=verbose`, `;charset=utf-8`).
    static func checkJSON(_ request: HTTPRequest) throws(ServiceError) {
        guard let type = essence(request) else { return }
        guard type == "application/json" else {
            throw .unsupportedMediaType("The Content-Type '\(request.header(.contentType) ?? "")' is not supported for this request; send the body as application/json (OData verbose JSON).")
        }
    }

    /// A raw property value: `text/plain` (or another text type) for text, and
    /// `application/octet-stream` for binary data.
    static func checkRaw(_ request: HTTPRequest) throws(ServiceError) {
        guard let type = essence(request) else { return }
        guard type.hasPrefix("text/") || type == "application/octet-stream" else {
            throw .unsupportedMediaType("The Content-Type '\(request.header(.contentType) ?? "")' is not supported for a $value body; send text/plain, or application/octet-stream for binary data.")
        }
    }

    /// The lower-cased `type/subtype` of the request's Content-Type, nil when there is none.
    /// Read as bytes: media types are ASCII, and Foundation's trimming cost 23,000 instructions
    /// on every write, inside its transaction.
    static func essence(_ request: HTTPRequest) -> String? {
        guard var header = request.header(.contentType) else { return nil }
        return header.withUTF8 { bytes -> String? in
            var end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
            var start = 0
            while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
            while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
            return start == end ? nil : ASCIICase.lowercased(UnsafeBufferPointer(rebasing: bytes[start..<end]))
        }
    }
}
