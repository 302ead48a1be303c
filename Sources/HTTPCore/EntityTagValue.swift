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
            Self.weakTag(of: value)
        }
    }

    private static func weakTag(of value: UInt64) -> String {
        var bytes = [UInt8](repeating: 0, count: weakTagLength)
        do {
            var out = bytes.mutableSpan
            writeWeakTag(of: value, to: &out)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Writes the `weakTagLength` bytes of `W/"<digits>"` for `value` at the start of `out`, the
    /// most significant digit first (`HTTPServer` writes them on the stack, as a header field).
    static func writeWeakTag(of value: UInt64, to out: inout MutableSpan<UInt8>) {
        precondition(out.count >= weakTagLength, "no room for a weak tag")
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
