/// Why a byte sequence is not a JSON document, and where: `offset` is the zero-based index of
/// the byte at fault in the input.
public struct JSONParseError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// The bytes are not well-formed UTF-8 (RFC 3629).
        case invalidUTF8
        /// The text is UTF-8 but does not follow the JSON grammar, or breaks a limit.
        case syntax
    }

    public let kind: Kind
    public let offset: Int
    public let message: String

    public init(_ kind: Kind, offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }

    public var description: String {
        switch kind {
        case .invalidUTF8: return "invalid UTF-8 at byte \(offset): \(message)"
        case .syntax: return "malformed JSON at byte \(offset): \(message)"
        }
    }
}
