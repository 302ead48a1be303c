import HTTPCore

/// The Content-Type a write body must have (415 otherwise): verbose JSON, or Atom and XML, for
/// entities, properties and links, plain text for the raw `$value` of a
/// non-binary property and bytes for a binary one. The body is read as UTF-8, so a charset
/// other than UTF-8 (or its subset US-ASCII) is refused rather than misread; so are a missing
/// and a malformed Content-Type: the service does not guess what a body is.
enum RequestBodyType {
    /// How an entity, property or link body is written.
    enum Format {
        case json
        /// An Atom entry for an entity, XML for a property or a link.
        case xml
    }

    /// `application/json`, or `application/atom+xml`, `application/xml` and `text/xml` (the
    /// types Atom and XML clients send), each in UTF-8.
    static func checkJSONOrXML(_ request: HTTPRequest) throws(ServiceError) -> Format {
        let expected = "application/json (OData verbose JSON) or application/atom+xml"
        let type = try mediaType(request, expected: expected)
        let format: Format
        switch type.essence {
        case "application/json": format = .json
        case "application/atom+xml", "application/xml", "text/xml": format = .xml
        default:
            throw .unsupportedMediaType("The Content-Type '\(request.header(.contentType) ?? "")' is not supported for this request; send the body as \(expected).")
        }
        try checkCharset(type, request)
        return format
    }

    /// A raw property value: `text/plain` (or another text type) for text, and
    /// `application/octet-stream` for binary data.
    static func checkRaw(_ request: HTTPRequest, binary: Bool) throws(ServiceError) {
        let expected = binary ? "application/octet-stream" : "text/plain"
        let type = try mediaType(request, expected: expected + " for this property's $value")
        if binary {
            guard type.essence == "application/octet-stream" else {
                throw .unsupportedMediaType("The Content-Type '\(request.header(.contentType) ?? "")' is not supported for the $value of a binary property; send application/octet-stream.")
            }
        } else {
            guard type.essence.hasPrefix("text/") else {
                throw .unsupportedMediaType("The Content-Type '\(request.header(.contentType) ?? "")' is not supported for the $value of a non-binary property; send text/plain.")
            }
            try checkCharset(type, request)
        }
    }

    /// A Content-Type split into its lower-cased `type/subtype` and its charset parameter.
    struct MediaType: Equatable {
        let essence: String
        /// Lower-cased, without quotes; nil when the parameter is absent.
        let charset: String?
    }

    /// The request's media type; 415 when it has none or it is not of the form
    /// `type/subtype *(; name=value)`.
    private static func mediaType(_ request: HTTPRequest, expected: String) throws(ServiceError) -> MediaType {
        guard let header = request.header(.contentType) else {
            throw .unsupportedMediaType("The request body has no Content-Type; send it as \(expected).")
        }
        guard let type = parse(header) else {
            throw .unsupportedMediaType("The Content-Type '\(header)' is not a media type; send the body as \(expected).")
        }
        return type
    }

    private static func checkCharset(_ type: MediaType, _ request: HTTPRequest) throws(ServiceError) {
        guard let charset = type.charset, charset != "utf-8", charset != "us-ascii" else { return }
        throw .unsupportedMediaType("The charset '\(charset)' of the Content-Type '\(request.header(.contentType) ?? "")' is not supported; send the body in UTF-8.")
    }

    /// Parses `type/subtype; name=value; …` (RFC 9110 8.3.1). Read as bytes: media types are
    /// ASCII, and Foundation's trimming cost 23,000 instructions on every write, inside its
    /// transaction.
    static func parse(_ header: String) -> MediaType? {
        let bytes = Array(header.utf8)
        var parts: [Range<Int>] = []
        var start = 0
        for index in 0...bytes.count where index == bytes.count || bytes[index] == UInt8(ascii: ";") {
            parts.append(trimmed(bytes, start..<index))
            start = index + 1
        }
        let essence = parts[0]
        guard let slash = bytes[essence].firstIndex(of: UInt8(ascii: "/")),
              isToken(bytes, essence.lowerBound..<slash), isToken(bytes, slash + 1..<essence.upperBound) else { return nil }
        var charset: String?
        for (offset, parameter) in parts.dropFirst().enumerated() {
            // A `;` that ends the header is tolerated; an empty parameter between two is not.
            if parameter.isEmpty && offset == parts.count - 2 { continue }
            guard let equals = bytes[parameter].firstIndex(of: UInt8(ascii: "=")) else { return nil }
            let name = trimmed(bytes, parameter.lowerBound..<equals)
            var value = trimmed(bytes, equals + 1..<parameter.upperBound)
            guard isToken(bytes, name) else { return nil }
            if value.count >= 2, bytes[value.lowerBound] == UInt8(ascii: "\""), bytes[value.upperBound - 1] == UInt8(ascii: "\"") {
                value = value.lowerBound + 1..<value.upperBound - 1
            } else if !isToken(bytes, value) {
                return nil
            }
            if ASCIICase.lowercased(bytes.span.extracting(name)) == "charset" {
                charset = ASCIICase.lowercased(bytes.span.extracting(value))
            }
        }
        return MediaType(essence: ASCIICase.lowercased(bytes.span.extracting(essence)), charset: charset)
    }

    /// The lower-cased `type/subtype` of the request's Content-Type, nil when there is none or
    /// it is empty.
    static func essence(_ request: HTTPRequest) -> String? {
        guard let header = request.header(.contentType) else { return nil }
        let bytes = Array(header.utf8)
        let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.count
        let range = trimmed(bytes, 0..<end)
        return range.isEmpty ? nil : ASCIICase.lowercased(bytes.span.extracting(range))
    }

    private static func trimmed(_ bytes: [UInt8], _ range: Range<Int>) -> Range<Int> {
        var (start, end) = (range.lowerBound, range.upperBound)
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return start..<end
    }

    /// An RFC 9110 token: one or more visible ASCII characters other than delimiters.
    private static func isToken(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        guard !range.isEmpty else { return false }
        for index in range {
            let byte = bytes[index]
            guard byte > 0x20, byte < 0x7F, !"\"(),/:;<=>?@[\\]{}".utf8.contains(byte) else { return false }
        }
        return true
    }
}
