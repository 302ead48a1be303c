/// Appends JSON text straight to a byte buffer: no intermediate objects, no Foundation on the
/// hot path. The caller writes structure; this type gets escaping and numbers right.
/// Noncopyable: it owns its storage, which it frees when it ends.
public struct JSONWriter: ~Copyable {
    private var buffer: ByteBuffer

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
        guard let base = utf8.baseAddress else { return }
        let count = utf8.count
        var start = 0
        var index = 0
        // Eight bytes at a time: a word in which no byte needs an escape (nearly all of them)
        // costs a few instructions instead of three comparisons per byte.
        while index + 8 <= count {
            if Self.needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) {
                for position in index..<index + 8 where Self.needsEscape(base[position]) {
                    flushEscaping(base, from: &start, to: position)
                }
            }
            index += 8
        }
        // The bytes after the last whole word, tested at once with loads that overlap bytes
        // already tested (or, below eight bytes, each other); only when one of those bytes
        // needs an escape are they gone through one by one. Most values are shorter than a word.
        if index < count && Self.mayNeedEscape(tailOf: UnsafeRawPointer(base), count: count) {
            while index < count {
                if Self.needsEscape(base[index]) { flushEscaping(base, from: &start, to: index) }
                index += 1
            }
        }
        if count > start { buffer.append(UnsafeBufferPointer(start: base + start, count: count - start)) }
    }

    /// Whether no byte of `utf8` needs an escape, tested a word at a time as `appendEscaped`
    /// tests them: text that passes can be copied as it is (`ReservedBytes.putStoredColumn`).
    @inline(__always)
    static func needsNoEscape(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = utf8.baseAddress else { return true }
        let count = utf8.count
        guard count >= 4 else { return !utf8.contains { needsEscape($0) } }
        var index = 0
        while index + 8 <= count {
            if needsEscape(UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)) { return false }
            index += 8
        }
        return index == count || !mayNeedEscape(tailOf: UnsafeRawPointer(base), count: count)
    }

    /// Whether a byte among the last eight of the `count` at `base` (all of them, when fewer)
    /// may need an escape; below four bytes it answers yes without looking.
    @inline(__always)
    private static func mayNeedEscape(tailOf base: UnsafeRawPointer, count: Int) -> Bool {
        if count >= 8 { return needsEscape(base.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)) }
        guard count >= 4 else { return true }
        let head = UInt64(base.loadUnaligned(as: UInt32.self))
        let tail = UInt64(base.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        return needsEscape(head | tail << 32)
    }

    /// Appends the run from `start` up to the byte at `position`, then that byte's escape.
    private mutating func flushEscaping(_ base: UnsafePointer<UInt8>, from start: inout Int, to position: Int) {
        if position > start { buffer.append(UnsafeBufferPointer(start: base + start, count: position - start)) }
        escape(base[position])
        start = position + 1
    }

    @inline(__always)
    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
    }

    /// Whether any byte of `word` is below 0x20, `"` or `\`. The borrow tricks of "Bit Twiddling
    /// Hacks" (hasless, haszero): exact for whether such a byte exists, not for which one.
    @inline(__always)
    private static func needsEscape(_ word: UInt64) -> Bool {
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
    public mutating func appendVerbatim(_ utf8: [UInt8]) { utf8.withUnsafeBufferPointer { buffer.append($0) } }

    public mutating func appendVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) { buffer.append(utf8) }

    /// What was written at `range` (which lies before the current end), valid until the next
    /// write that may move the storage.
    @inline(__always)
    func written(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> { buffer.written(range) }

    /// Writes again what was written at `range` (which lies before the current end).
    public mutating func repeatWritten(_ range: Range<Int>) { buffer.appendCopy(of: range) }

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
