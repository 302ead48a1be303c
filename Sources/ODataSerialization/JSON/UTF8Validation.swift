/// Strict UTF-8 well-formedness (RFC 3629, Unicode Table 3-7): no overlong forms, no encoded
/// surrogates, nothing above U+10FFFF. Request bodies are checked with it before parsing, so
/// that a string decoded from them never carries replacement characters.
enum UTF8Validation {
    /// The offset of the first byte that is not part of a well-formed sequence, or nil.
    static func firstInvalidOffset<Bytes: RandomAccessCollection>(in bytes: Bytes) -> (offset: Int, reason: String)?
    where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        let end = bytes.endIndex
        while index < end {
            let lead = bytes[index]
            if lead < 0x80 {
                index += 1
                continue
            }
            let length: Int
            var secondRange: ClosedRange<UInt8> = 0x80...0xBF
            switch lead {
            case 0xC2...0xDF: length = 2
            case 0xE0: length = 3; secondRange = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3
            case 0xED: length = 3; secondRange = 0x80...0x9F
            case 0xF0: length = 4; secondRange = 0x90...0xBF
            case 0xF1...0xF3: length = 4
            case 0xF4: length = 4; secondRange = 0x80...0x8F
            case 0x80...0xBF: return (index - bytes.startIndex, "unexpected continuation byte 0x\(hex(lead))")
            default: return (index - bytes.startIndex, "byte 0x\(hex(lead)) never occurs in UTF-8")
            }
            guard index + length <= end else {
                return (index - bytes.startIndex, "truncated \(length)-byte sequence at the end of the input")
            }
            guard secondRange.contains(bytes[index + 1]) else {
                return (index + 1 - bytes.startIndex, "invalid byte 0x\(hex(bytes[index + 1])) after lead byte 0x\(hex(lead))")
            }
            for next in (index + 2)..<(index + length) where !(0x80...0xBF).contains(bytes[next]) {
                return (next - bytes.startIndex, "invalid byte 0x\(hex(bytes[next])) in a \(length)-byte sequence")
            }
            index += length
        }
        return nil
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
