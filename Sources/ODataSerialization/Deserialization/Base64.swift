/// Strict base64 (RFC 4648 section 4, the standard alphabet with `=` padding), the encoding of
/// Edm.Binary in verbose JSON. Whitespace and unpadded input are rejected rather than guessed at.
enum Base64 {
    static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        var index = 0
        while index < input.count {
            let isLastQuantum = index + 4 == input.count
            var values: [UInt8] = []
            var padding = 0
            for offset in 0..<4 {
                let byte = input[index + offset]
                if byte == UInt8(ascii: "=") {
                    // Padding only in the last quantum, only in its last two places, and only at the end.
                    guard isLastQuantum, offset >= 2 else { return nil }
                    padding += 1
                    continue
                }
                guard padding == 0, let value = sextet(byte) else { return nil }
                values.append(value)
            }
            output.append(values[0] << 2 | values[1] >> 4)
            if values.count > 2 { output.append(values[1] << 4 | values[2] >> 2) }
            if values.count > 3 { output.append(values[2] << 6 | values[3]) }
            index += 4
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return byte - UInt8(ascii: "A")
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return byte - UInt8(ascii: "a") + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0") + 52
        case UInt8(ascii: "+"): return 62
        case UInt8(ascii: "/"): return 63
        default: return nil
        }
    }
}
