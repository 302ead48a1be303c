/// The value of an ETag header field: text, or a weak tag whose opaque part is the 16 lower-case
/// hexadecimal digits of a 64-bit value (`W/"0123456789abcdef"`). The second is written into the
/// response when it is sent: made a String first, it cost an allocation and its free (about 480
/// instructions) for every entity served.
public enum EntityTagValue: Sendable, Equatable {
    case text(String)
    case weak(UInt64)

    /// The header value as text.
    public var text: String {
        switch self {
        case .text(let text): text
        case .weak: withCString { String(cString: $0) }
        }
    }

    /// Lends the header value as a C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        switch self {
        case .text(let text):
            return text.withCString(body)
        case .weak(let value):
            // `W/"` + 16 digits + `"` + NUL, on the stack.
            return withUnsafeTemporaryAllocation(of: CChar.self, capacity: 21) { buffer in
                let hex: StaticString = "0123456789abcdef"
                let digits = hex.utf8Start
                buffer[0] = CChar(UInt8(ascii: "W"))
                buffer[1] = CChar(UInt8(ascii: "/"))
                buffer[2] = CChar(UInt8(ascii: "\""))
                for index in 0..<16 {
                    buffer[3 + index] = CChar(digits[Int((value >> UInt64(60 - 4 * index)) & 0xF)])
                }
                buffer[19] = CChar(UInt8(ascii: "\""))
                buffer[20] = 0
                return body(buffer.baseAddress!)
            }
        }
    }
}
