/// Appends JSON text straight to a byte buffer: no intermediate objects, no Foundation on the
/// hot path. The caller writes structure; this type gets escaping and numbers right.
/// Noncopyable: it owns its storage, which it frees when it ends.
/// Its methods that take pointers are in ByteBuffer.swift, with the storage they write to.
public struct JSONWriter: ~Copyable {
    var buffer: ByteBuffer

    public init(capacity: Int = 1024) { buffer = ByteBuffer(capacity: capacity) }

    /// A writer that keeps room for a prefix of up to `prefixRoom` bytes, decided and put in
    /// place (`prepend`) after the rest is written.
    public init(capacity: Int, reservingPrefix prefixRoom: Int) {
        buffer = ByteBuffer(capacity: capacity, reservingPrefix: prefixRoom)
    }

    /// What has been written.
    public var bytes: [UInt8] { buffer.array }

    /// What has been written, in the writer's own storage, without a copy: the writer ends here.
    public consuming func serialized() -> SerializedBytes { buffer.serialized() }

    /// The position after the last byte written; ranges of written bytes are in these terms.
    public var count: Int { buffer.count }

    /// Writes `text` before everything written so far, in the room kept by `init(capacity:reservingPrefix:)`.
    public mutating func prepend(_ text: StaticString) { buffer.prepend(text) }

    @inline(__always)
    public mutating func raw(_ text: StaticString) { buffer.append(text) }

    @inline(__always)
    public mutating func byte(_ value: UInt8) { buffer.append(value) }

    /// A JSON string with the escapes RFC 8259 requires; `/` is escaped only where asked
    /// (the `\/Date(...)\/` form).
    public mutating func string(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        appendEscaped(text)
        buffer.append(UInt8(ascii: "\""))
    }

    @inline(__always)
    static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any byte of `word` is below 0x20, `"` or `\`. The borrow tricks of "Bit Twiddling
    /// Hacks" (hasless, haszero): exact for whether such a byte exists, not for which one.
    @inline(__always)
    static func needsEscape(_ word: UInt64) -> Bool {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let highBits: UInt64 = 0x8080_8080_8080_8080
        let control = (word &- ones &* 0x20) & ~word
        let quote = word ^ (ones &* UInt64(UInt8(ascii: "\"")))
        let backslash = word ^ (ones &* UInt64(UInt8(ascii: "\\")))
        let quoteZero = (quote &- ones) & ~quote
        let backslashZero = (backslash &- ones) & ~backslash
        return (control | quoteZero | backslashZero) & highBits != 0
    }

    /// Appends bytes known to need no escaping (URIs built from escaped parts, names from the model).
    public mutating func appendVerbatim(_ utf8: [UInt8]) { buffer.append(utf8) }

    /// `"name":`
    public mutating func key(_ name: String) {
        string(name)
        buffer.append(UInt8(ascii: ":"))
    }

    /// Decimal digits written straight into the buffer, without a String in between.
    public mutating func integer(_ value: Int64) {
        var room = buffer.reserved(20)
        room.putInteger(value)
        buffer.commit(room)
    }

    /// The 16 lower-case hexadecimal digits of `value`, leading zeros included, as an ETag
    /// spells its digest (`EntityTag.writeDigits`).
    public mutating func hexadecimal(_ value: UInt64) {
        var room = buffer.reserved(16)
        room.putTagDigits(value)
        buffer.commit(room)
    }

    /// Room for `count` more bytes, written through the result without a capacity check each
    /// (`ReservedBytes`) and made part of the document by `commit`. Any other write in between
    /// may move the storage: commit first, and reserve again after it.
    @inline(__always)
    mutating func reserve(_ count: Int) -> ReservedBytes { buffer.reserved(count) }

    @inline(__always)
    mutating func commit(_ room: ReservedBytes) { buffer.commit(room) }

    public mutating func text(_ value: String) { buffer.append(value) }

    mutating func escape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): raw("\\\"")
        case UInt8(ascii: "\\"): raw("\\\\")
        case 0x0A: raw("\\n")
        case 0x0D: raw("\\r")
        case 0x09: raw("\\t")
        case 0x08: raw("\\b")
        case 0x0C: raw("\\f")
        default:
            let hex: [UInt8] = Array("0123456789abcdef".utf8)
            raw("\\u00")
            buffer.append(hex[Int(byte >> 4)])
            buffer.append(hex[Int(byte & 0xF)])
        }
    }
}
