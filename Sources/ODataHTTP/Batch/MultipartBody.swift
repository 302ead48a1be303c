/// The MIME pieces a batch is made of (RFC 2046 section 5.1.1): splitting a multipart body at
/// its boundary delimiters, and reading a part's header block.
///
/// Line breaks are CRLF by the RFC; a bare LF is accepted too, because hand-written batches and
/// some clients use it. The line break before a delimiter belongs to the delimiter, not to the
/// part, so a body ends exactly where its bytes end.
enum MultipartBody {
    /// The parts between the first delimiter and the close delimiter; preamble and epilogue are
    /// ignored. `what` names the body in errors ("the batch", "change set in batch part 2").
    static func parts(of body: ArraySlice<UInt8>, boundary: String, what: String) throws(BatchError) -> [ArraySlice<UInt8>] {
        let delimiter = Array("--\(boundary)".utf8)
        var parts: [ArraySlice<UInt8>] = []
        var partStart: Int?
        var lineStart = body.startIndex
        while lineStart < body.endIndex {
            let lineEnd = body[lineStart...].firstIndex(of: 0x0A) ?? body.endIndex
            var line = body[lineStart..<lineEnd]
            if line.last == 0x0D { line = line.dropLast() }
            if line.starts(with: delimiter) {
                var rest = line.dropFirst(delimiter.count)
                let isClose = rest.starts(with: [0x2D, 0x2D])
                if isClose { rest = rest.dropFirst(2) }
                // Transport padding (spaces, tabs) may follow a delimiter; anything else means
                // the line merely starts like one.
                if rest.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) {
                    if let start = partStart {
                        var end = lineStart
                        if end > start, body[end - 1] == 0x0A {
                            end -= 1
                            if end > start, body[end - 1] == 0x0D { end -= 1 }
                        }
                        parts.append(body[start..<end])
                    }
                    if isClose { return parts }
                    partStart = min(lineEnd + 1, body.endIndex)
                }
            }
            lineStart = lineEnd + 1
        }
        if partStart == nil {
            throw BatchError("\(what) does not contain the boundary delimiter '--\(boundary)'.")
        }
        throw BatchError("\(what) ends without the closing delimiter '--\(boundary)--'.")
    }

    /// Reads header lines up to the first empty line. Returns the headers and the index where
    /// the content after the empty line starts, or nil for that index when the block runs to the
    /// end of the bytes without an empty line.
    static func headers(of bytes: ArraySlice<UInt8>, what: String) throws(BatchError) -> (BatchHeaders, bodyStart: Int?) {
        var headers: [BatchHeaders.Field] = []
        var lineStart = bytes.startIndex
        while lineStart < bytes.endIndex {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.endIndex
            var line = bytes[lineStart..<lineEnd]
            if line.last == 0x0D { line = line.dropLast() }
            let next = min(lineEnd + 1, bytes.endIndex)
            if line.isEmpty { return (BatchHeaders(headers), next) }
            let text = String(decoding: line, as: UTF8.self)
            if line.first == 0x20 || line.first == 0x09 {
                // An obsolete folded continuation of the previous header's value.
                guard let last = headers.popLast() else {
                    throw BatchError("\(what): the header block starts with a continuation line '\(clip(text))'.")
                }
                headers.append(BatchHeaders.Field(name: last.name, value: last.value + " " + trimmed(text)))
            } else {
                guard let colon = text.firstIndex(of: ":") else {
                    throw BatchError("\(what): the header line '\(clip(text))' has no colon.")
                }
                let name = String(text[..<colon])
                guard !name.isEmpty, name.allSatisfy(isTokenCharacter) else {
                    throw BatchError("\(what): '\(clip(name))' is not a valid header name.")
                }
                headers.append(BatchHeaders.Field(name: name, value: trimmed(text[text.index(after: colon)...])))
            }
            lineStart = lineEnd + 1
        }
        return (BatchHeaders(headers), nil)
    }

    static func trimmed<S: StringProtocol>(_ text: S) -> String {
        var slice = Substring(text)
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }

    static func clip(_ text: String) -> String {
        text.count <= 60 ? text : String(text.prefix(57)) + "..."
    }

    /// RFC 9110 tchar.
    static func isTokenCharacter(_ c: Character) -> Bool {
        guard c.isASCII, let ascii = c.asciiValue else { return false }
        if (ascii >= 0x30 && ascii <= 0x39) || (ascii >= 0x41 && ascii <= 0x5A) || (ascii >= 0x61 && ascii <= 0x7A) { return true }
        return "!#$%&'*+-.^_`|~".contains(c)
    }
}
