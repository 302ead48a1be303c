import ODataStore

/// Writes into room a `JSONWriter` has already reserved (`JSONWriter.reserve`): a pointer that
/// moves, with a bounds check but no capacity check (growth) and no stored count per write. An entity's writer reserves once for everything of bounded size it writes (names,
/// numbers, its URI, the ETag) and commits (`JSONWriter.commit`) before anything unbounded, such
/// as text to escape, which the writer then appends with its own checks. Checked appends cost
/// about 280 instructions per entity of a `Person?$top=20` page (callgrind).
struct ReservedBytes {
    /// Where the next byte goes.
    private(set) var position: UnsafeMutablePointer<UInt8>
    /// The end of the reserved room: a write past it stops the process, in every build, rather
    /// than overwrite whatever lies beyond (a bound computed by hand can be wrong).
    private let limit: UnsafeMutablePointer<UInt8>

    init(position: UnsafeMutablePointer<UInt8>, limit: UnsafeMutablePointer<UInt8>) {
        self.position = position
        self.limit = limit
    }

    @inline(__always)
    private func check(_ count: Int) {
        precondition(limit - position >= count, "a write beyond the room reserved")
    }

    @inline(__always)
    mutating func put(_ byte: UInt8) {
        check(1)
        position.pointee = byte
        position += 1
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress else { return }
        check(bytes.count)
        ByteBuffer.copy(bytes.count, from: base, to: position)
        position += bytes.count
    }

    @inline(__always)
    mutating func put(_ text: StaticString) {
        text.withUTF8Buffer { put($0) }
    }

    @inline(__always)
    mutating func put(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        put(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    /// Decimal digits, with a minus sign when negative.
    @inline(__always)
    mutating func putInteger(_ value: Int64) {
        check(20)
        if value < 0 { put(UInt8(ascii: "-")) }
        position += ByteBuffer.writeDecimal(value.magnitude, to: position)
    }

    /// The 16 lower-case hexadecimal digits of an ETag's digest (`EntityTag.writeDigits`).
    @inline(__always)
    mutating func putTagDigits(_ digest: UInt64) {
        check(16)
        EntityTag.writeDigits(of: digest, to: UnsafeMutableRawPointer(position))
        position += 16
    }
}
