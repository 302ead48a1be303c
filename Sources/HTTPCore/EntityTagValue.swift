/// The value of an ETag header field: text, or a weak tag whose opaque part is the 16 lower-case
/// hexadecimal digits of a 64-bit value (`W/"0123456789abcdef"`). The second is written into the
/// response when it is sent: made a String first, it cost an allocation and its free (about 480
/// instructions) for every entity served. An application that spells such tags itself must
/// spell them the same way.
public enum EntityTagValue: Sendable, Equatable {
    case text(String)
    case weak(UInt64)

    /// The bytes of a weak tag: `W/"` + 16 digits + `"`.
    public static let weakTagLength = 20

    /// The header value as text.
    public var text: String {
        switch self {
        case .text(let text):
            text
        case .weak(let value):
            String(unsafeUninitializedCapacity: Self.weakTagLength) { buffer in
                Self.writeWeakTag(of: value, to: buffer.baseAddress!)
                return Self.weakTagLength
            }
        }
    }

    /// Lends the header value as a C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        switch self {
        case .text(let text):
            return text.withCString(body)
        case .weak(let value):
            // The tag and a NUL, on the stack.
            let length = Self.weakTagLength
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { buffer in
                Self.writeWeakTag(of: value, to: buffer.baseAddress!)
                buffer[length] = 0
                return UnsafeRawPointer(buffer.baseAddress!).withMemoryRebound(to: CChar.self, capacity: length + 1, body)
            }
        }
    }

    /// Writes the `weakTagLength` bytes of `W/"<digits>"` for `value` at `out`, the most
    /// significant digit first.
    private static func writeWeakTag(of value: UInt64, to out: UnsafeMutablePointer<UInt8>) {
        out[0] = UInt8(ascii: "W")
        out[1] = UInt8(ascii: "/")
        out[2] = UInt8(ascii: "\"")
        for index in 0..<16 {
            let nibble = UInt8(truncatingIfNeeded: value >> (60 - 4 * index)) & 0xF
            out[3 + index] = nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") - 10 + nibble
        }
        out[19] = UInt8(ascii: "\"")
    }
}
