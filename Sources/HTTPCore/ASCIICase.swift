/// Case folding for header names, which are ASCII: without Unicode case mapping and, for
/// comparisons, without allocating. Header lookups run several times on every request.
public enum ASCIICase {
    public static func lowercased(_ text: String) -> String {
        var text = text
        return text.withUTF8 { lowercased($0) }
    }

    public static func lowercased(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: bytes.count) { buffer in
            for (index, byte) in bytes.enumerated() {
                buffer[index] = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte | 0x20 : byte
            }
            return bytes.count
        }
    }

    public static func equalIgnoringCase(_ left: String, _ right: String) -> Bool {
        guard left.utf8.count == right.utf8.count else { return false }
        // Read in place: `withUTF8` on a `var` copy cost a retain and release of each string.
        if let equal = right.utf8.withContiguousStorageIfAvailable({ equalIgnoringCase(left, $0) }) { return equal }
        return Array(right.utf8).withUnsafeBufferPointer { equalIgnoringCase(left, $0) }
    }

    /// Whether `text` is `bytes` but for the case of letters.
    static func equalIgnoringCase(_ text: String, _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard text.utf8.count == bytes.count else { return false }
        if let equal = text.utf8.withContiguousStorageIfAvailable({ equalIgnoringCase($0, bytes) }) { return equal }
        // Strings without contiguous UTF-8 (bridged ones; native strings, small ones included, have it).
        return Array(text.utf8).withUnsafeBufferPointer { equalIgnoringCase($0, bytes) }
    }

    private static func equalIgnoringCase(_ left: UnsafeBufferPointer<UInt8>, _ right: UnsafeBufferPointer<UInt8>) -> Bool {
        for index in left.indices {
            let a = left[index], b = right[index]
            guard a == b || (a | 0x20 == b | 0x20 && (a | 0x20) >= UInt8(ascii: "a") && (a | 0x20) <= UInt8(ascii: "z")) else { return false }
        }
        return true
    }
}
