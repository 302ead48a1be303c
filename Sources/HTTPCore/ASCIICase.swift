/// Case folding for header names, which are ASCII: without Unicode case mapping and, for
/// comparisons, without allocating. Header lookups run several times on every request.
/// Reads text in place through `Span`, which checks its bounds.
public enum ASCIICase {
    public static func lowercased(_ text: String) -> String {
        lowercased(text.utf8.span)
    }

    public static func lowercased(_ bytes: Span<UInt8>) -> String {
        var lowered: [UInt8] = []
        lowered.reserveCapacity(bytes.count)
        for index in bytes.indices {
            let byte = bytes[index]
            lowered.append(byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte)
        }
        return String(decoding: lowered, as: UTF8.self)
    }

    /// Whether `left` is `right` but for the case of letters. Read in place: a `var` copy of
    /// each, to lend its UTF-8, cost a retain and release of each string.
    public static func equalIgnoringCase(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        return equalIgnoringCase(left.utf8.span, right.utf8.span)
    }

    static func equalIgnoringCase(_ left: Span<UInt8>, _ right: Span<UInt8>) -> Bool {
        guard left.count == right.count else { return false }
        for index in left.indices {
            let a = left[index], b = right[index]
            guard a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z")) else { return false }
        }
        return true
    }
}
