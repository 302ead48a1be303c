import ODataStore

/// The value of an ETag header field: text, or a weak tag whose opaque part is the 16 lower-case
/// hexadecimal digits of a 64-bit value (`W/"0123456789abcdef"`), spelled by
/// `EntityTag.writeWeakTag` with the digits `__metadata` spells. The second is written into the response
/// when it is sent: made a String first, it cost an allocation and its free (about 480
/// instructions) for every entity served.
public enum EntityTagValue: Sendable, Equatable {
    case text(String)
    case weak(UInt64)

    /// The header value as text.
    public var text: String {
        switch self {
        case .text(let text): text
        case .weak(let digest): EntityTag.weakTag(digest)
        }
    }

    /// Lends the header value as a C string.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        switch self {
        case .text(let text):
            return text.withCString(body)
        case .weak(let digest):
            // The tag and a NUL, on the stack.
            let length = EntityTag.weakTagLength
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { buffer in
                EntityTag.writeWeakTag(of: digest, to: UnsafeMutableRawPointer(buffer.baseAddress!))
                buffer[length] = 0
                return UnsafeRawPointer(buffer.baseAddress!).withMemoryRebound(to: CChar.self, capacity: length + 1, body)
            }
        }
    }
}
