/// Appends JSON text straight to a byte buffer: no intermediate objects, no Foundation on the
/// hot path. The caller writes structure; this type gets escaping and numbers right.
/// A writer is used by one function at a time and never copied: its storage is not copied on write.
public struct JSONWriter {
    private let buffer: ByteBuffer

    public init(capacity: Int = 1024) { buffer = ByteBuffer(capacity: capacity) }

    /// A writer that keeps room for a prefix of up to `prefixRoom` bytes, decided and put in
    /// place (`prepend`) after the rest is written.
    public init(capacity: Int, reservingPrefix prefixRoom: Int) {
        buffer = ByteBuffer(capacity: capacity, reservingPrefix: prefixRoom)
    }

    /// What has been written.
    public var bytes: [UInt8] { buffer.array }

    /// The position after the last byte written; ranges of written bytes are in these terms.
    public var count: Int { buffer.count }

    /// Writes `text` before everything written so far, in the room kept by `init(capacity:reservingPrefix:)`.
    public mutating func prepend(_ text: StaticString) {
        text.withUTF8Buffer { buffer.prepend($0) }
    }

    @inline(__always)
    public mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append($0) }
    }

    @inline(__always)
    public mutating func byte(_ value: UInt8) { buffer.append(value) }

    /// A JSON string with the escapes RFC 8259 requires; `/` is escaped only where asked
    /// (the `\/Date(...)\/` form).
    public mutating func string(_ text: String) {
        buffer.append(UInt8(ascii: "\""))
        var text = text
        text.withUTF8 { utf8 in appendEscaped(utf8) }
        buffer.append(UInt8(ascii: "\""))
    }

    /// Appends UTF-8 text with JSON escapes, copying the runs between escapes in one go.
    public mutating func appendEscaped(_ utf8: UnsafeBufferPointer<UInt8>) {
        var start = 0
        var index = 0
        let count = utf8.count
        while index < count {
            let byte = utf8[index]
            if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                if index > start { buffer.append(UnsafeBufferPointer(rebasing: utf8[start..<index])) }
                escape(byte)
                start = index + 1
            }
            index += 1
        }
        if count > start { buffer.append(UnsafeBufferPointer(rebasing: utf8[start..<count])) }
    }

    /// Appends bytes known to need no escaping (URIs built from escaped parts, names from the model).
    public mutating func appendVerbatim(_ utf8: [UInt8]) { utf8.withUnsafeBufferPointer { buffer.append($0) } }

    public mutating func appendVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) { buffer.append(utf8) }

    /// Writes again what was written at `range` (which lies before the current end).
    public mutating func repeatWritten(_ range: Range<Int>) { buffer.appendCopy(of: range) }

    /// `"name":`
    public mutating func key(_ name: String) {
        string(name)
        buffer.append(UInt8(ascii: ":"))
    }

    /// Decimal digits written straight into the buffer, without a String in between.
    public mutating func integer(_ value: Int64) {
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        buffer.appendDecimal(value.magnitude)
    }

    /// The 16 lower-case hexadecimal digits of `value`, leading zeros included.
    public mutating func hexadecimal(_ value: UInt64) { buffer.appendHexadecimal(value) }

    public mutating func text(_ value: String) {
        var value = value
        value.withUTF8 { buffer.append($0) }
    }

    private mutating func escape(_ byte: UInt8) {
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
