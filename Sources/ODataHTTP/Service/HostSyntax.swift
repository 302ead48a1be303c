/// The syntax of a Host header the service will write into its URIs: host[:port], the host a
/// name (letters, digits, `-`, `.`, `_`, `~`), an IPv4 address, or an IPv6 address in brackets
/// (RFC 3986 section 3.2.2, without the percent-encoded and sub-delimiter characters a name may
/// have there, which no real host name uses and which would need escaping in URIs).
enum HostSyntax {
    static func isWellFormed(_ host: String) -> Bool {
        let bytes = Array(host.utf8)
        guard !bytes.isEmpty, bytes.count <= 262 else { return false }
        var index = 0
        if bytes[0] == UInt8(ascii: "[") {
            guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
            let address = bytes[1..<close]
            guard address.contains(UInt8(ascii: ":")), address.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") })
            else { return false }
            index = close + 1
        } else {
            while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                guard isNameByte(bytes[index]) else { return false }
                index += 1
            }
            guard index > 0, index <= 255 else { return false }
        }
        guard index < bytes.count else { return true }
        // A port: `:` and up to five digits, no larger than 65535 (an empty one is allowed).
        guard bytes[index] == UInt8(ascii: ":") else { return false }
        let port = bytes[(index + 1)...]
        guard port.count <= 5, port.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else { return false }
        return port.isEmpty || Int(String(decoding: port, as: UTF8.self))! <= 65535
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            true
        default:
            false
        }
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }
}
