// Unsafe code, on purpose, and only here among the serializers: a document is written through
// pointers into storage of this file's own (`ByteBuffer`, `ReservedBytes`, `SerializedBytes`,
// the thread's `SpareBlock`), because a document is many small pieces and Array's append, with
// its uniqueness check and generic path on each, was a tenth of the instructions of large
// responses; and text is read in place (`JSONWriter.appendEscaped`, a word at a time). What keeps
// it sound:
// - every write and every read-back is bounds-checked in release builds too (`precondition`):
//   a wrong bound stops the process instead of overwriting the heap;
// - storage has one owner at a time: the noncopyable `ByteBuffer` until `serialized()` hands it
//   to `SerializedBytes`, which never changes it and frees it in its deinit;
// - pointers lent to callers (`UnsafeBufferPointer` arguments, `written`) live only for the call.
// The rest of the serializers write through `JSONWriter` and `ReservedBytes`, whose other
// methods take arrays, Strings and ranges, not pointers.
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataStore

/// The growable byte storage behind `JSONWriter`: an append is a capacity check and a copy.
/// Array's append, with its uniqueness check and generic path on every small fragment, was a
/// tenth of the instructions of large responses. Noncopyable rather than a class: an `inout`
/// writer cannot alias the bytes it stores, so the compiler need not load its count and capacity
/// again after each store, as it must a class's fields (a `Person?$top=20` page, callgrind:
/// 139,845 instructions as a class, 136,710 as this).
///
/// Its storage comes from malloc, not `UnsafeMutablePointer.allocate`: the standard library
/// asks the runtime for 16-byte alignment, which glibc serves through posix_memalign, past its
/// per-thread cache (a `Person?$top=20`, callgrind: about 350 instructions more that way).
struct ByteBuffer: ~Copyable {
    private(set) var pointer: UnsafeMutablePointer<UInt8>
    /// The end of what is written, counted from the start of storage (room kept free included).
    private(set) var count = 0
    /// Where the content begins: after room kept free for a prefix written last.
    private var start = 0
    private var capacity: Int

    init(capacity: Int, reservingPrefix prefixRoom: Int = 0) {
        self.capacity = max(capacity, prefixRoom + 64)
        pointer = Self.allocate(self.capacity)
        start = prefixRoom
        count = prefixRoom
    }

    deinit { Self.release(pointer, count: capacity) }

    /// `count` bytes from malloc, or the thread's `SpareBlock` when it is that size; running
    /// out of memory stops the process, as `allocate` does.
    static func allocate(_ count: Int) -> UnsafeMutablePointer<UInt8> {
        if count == SpareBlock.size, let spare = SpareBlock.take() { return spare }
        guard let memory = malloc(count) else { fatalError("out of memory: \(count) bytes") }
        return memory.assumingMemoryBound(to: UInt8.self)
    }

    /// Lets go of storage from `allocate(count)`.
    static func release(_ storage: UnsafeMutablePointer<UInt8>, count: Int) {
        if count == SpareBlock.size { SpareBlock.keep(storage) } else { free(storage) }
    }

    @inline(__always)
    mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(to: count + extra) }
    }

    private mutating func grow(to needed: Int) {
        var newCapacity = capacity * 2
        while newCapacity < needed { newCapacity *= 2 }
        let newPointer = Self.allocate(newCapacity)
        newPointer.update(from: pointer, count: count)
        Self.release(pointer, count: capacity)
        pointer = newPointer
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        pointer[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        reserve(bytes.count)
        Self.copy(bytes.count, from: base, to: pointer + count)
        count += bytes.count
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append($0) }
    }

    @inline(__always)
    mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { append($0) }
    }

    /// The UTF-8 of `text` as it is: for text known to need no escape.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    /// Bytes already written (a range below `count`).
    @inline(__always)
    func written(_ range: Range<Int>) -> UnsafeBufferPointer<UInt8> {
        precondition(range.lowerBound >= start && range.upperBound <= count, "a range beyond what is written")
        return UnsafeBufferPointer(start: pointer + range.lowerBound, count: range.count)
    }

    /// Copies `count` bytes between regions that do not overlap. Most of what a writer appends is
    /// short (a property's name, a fragment between values, a value): up to 16 bytes are copied
    /// here with two loads and two stores, which may overlap each other, rather than by a call to
    /// memcpy each (a `Person?$top=20` page, callgrind: 144,272 instructions before, 141,201 after).
    @inline(__always)
    static func copy(_ count: Int, from source: UnsafePointer<UInt8>, to destination: UnsafeMutablePointer<UInt8>) {
        let from = UnsafeRawPointer(source)
        let to = UnsafeMutableRawPointer(destination)
        if count > 16 {
            to.copyMemory(from: from, byteCount: count)
        } else if count >= 8 {
            let head = from.loadUnaligned(as: UInt64.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
            to.storeBytes(of: head, as: UInt64.self)
            to.storeBytes(of: tail, toByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            let head = from.loadUnaligned(as: UInt32.self)
            let tail = from.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self)
            to.storeBytes(of: head, as: UInt32.self)
            to.storeBytes(of: tail, toByteOffset: count - 4, as: UInt32.self)
        } else if count > 0 {
            // One to three bytes: the first, the middle and the last cover them all.
            destination[0] = source[0]
            destination[count >> 1] = source[count >> 1]
            destination[count - 1] = source[count - 1]
        }
    }

    /// Room for `extra` more bytes, written through the result without a check each and made
    /// part of the content by `commit`. Any other append in between may move the storage.
    @inline(__always)
    mutating func reserved(_ extra: Int) -> ReservedBytes {
        reserve(extra)
        return ReservedBytes(position: pointer + count, limit: pointer + count + extra)
    }

    /// Makes what was written through `reserved` part of the content.
    @inline(__always)
    mutating func commit(_ reserved: ReservedBytes) {
        precondition(reserved.position >= pointer + count && reserved.position <= pointer + capacity,
               "a reservation in storage that has since moved")
        count = reserved.position - pointer
    }

    /// Writes the decimal digits of `value` at `out`, two at a time from a table of the hundred
    /// pairs, and returns how many it wrote (at most 20).
    @inline(__always)
    static func writeDecimal(_ value: UInt64, to out: UnsafeMutablePointer<UInt8>) -> Int {
        // The digit count from the bit length b: b * 1233 / 4096 is b * log10(2) rounded down
        // (1233 / 4096 is log10(2) to four places), which is the count or one short of it, and
        // one short exactly when `value` reaches the next power of ten. A loop over the powers
        // of ten cost 13 rounds for a date's milliseconds.
        let estimate = ((64 - value.leadingZeroBitCount) &* 1233) >> 12
        let digits = max(1, value >= ByteBuffer.powersOfTen[estimate] ? estimate + 1 : estimate)
        let pairs: StaticString = """
            00010203040506070809101112131415161718192021222324252627282930313233343536373839\
            40414243444546474849505152535455565758596061626364656667686970717273747576777879\
            8081828384858687888990919293949596979899
            """
        let table = UnsafeRawPointer(pairs.utf8Start)
        let output = UnsafeMutableRawPointer(out)
        var rest = value
        var end = digits
        // Each pair is moved as one 2-byte word, and `end` stays within 0...20 without the
        // overflow checks of `-=` (a date's 13 digits take six rounds).
        while rest >= 100 {
            let pair = Int(truncatingIfNeeded: rest % 100) &* 2
            rest /= 100
            end &-= 2
            output.storeBytes(of: table.loadUnaligned(fromByteOffset: pair, as: UInt16.self), toByteOffset: end, as: UInt16.self)
        }
        if rest >= 10 {
            let pair = Int(truncatingIfNeeded: rest) &* 2
            output.storeBytes(of: table.loadUnaligned(fromByteOffset: pair, as: UInt16.self), toByteOffset: end &- 2, as: UInt16.self)
        } else {
            out[end &- 1] = UInt8(ascii: "0") &+ UInt8(truncatingIfNeeded: rest)
        }
        return digits
    }

    /// 10^0 through 10^19, the largest power of ten below UInt64.max. Written out: a literal
    /// array is laid out at compile time, where one computed at first use was a `swift_once`
    /// check on every number written.
    private static let powersOfTen: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000,
        10_000_000_000, 100_000_000_000, 1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000,
        1_000_000_000_000_000, 10_000_000_000_000_000, 100_000_000_000_000_000,
        1_000_000_000_000_000_000, 10_000_000_000_000_000_000,
    ]

    /// Puts `text` right before the content, in the room kept free at init.
    mutating func prepend(_ text: StaticString) {
        text.withUTF8Buffer { prepend($0) }
    }

    private mutating func prepend(_ bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= start, "no room kept for this prefix")
        start -= bytes.count
        guard let base = bytes.baseAddress else { return }
        (pointer + start).update(from: base, count: bytes.count)
    }

    var array: [UInt8] { Array(UnsafeBufferPointer(start: pointer + start, count: count - start)) }

    /// The content, in this buffer's own storage, which the result now owns.
    consuming func serialized() -> SerializedBytes {
        let bytes = SerializedBytes(taking: pointer, capacity: capacity, range: start..<count)
        // The storage is the result's now: not freed here.
        discard self
        return bytes
    }
}


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
        precondition(range.lowerBound >= 0 && range.upperBound <= bytes.count, "a range beyond its bytes")
        put(UnsafeBufferPointer(rebasing: bytes[range]))
    }

    @inline(__always)
    mutating func put(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { put($0) }
    }

    /// The bytes of `bytes` at `range` (a layout's fragments).
    @inline(__always)
    mutating func put(_ bytes: [UInt8], _ range: Range<Int>) {
        bytes.withUnsafeBufferPointer { put($0, range) }
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


/// A document in the storage its writer wrote it to, handed on without a copy: the HTTP layer
/// lends these bytes to libmicrohttpd, which sends them from here. Copied into an array, a page
/// of 20 entities cost a second allocation of its size, the copy and a second free (about 1,100
/// instructions of a `Person?$top=20`, callgrind).
/// Immutable once made, so it may cross threads.
public final class SerializedBytes: @unchecked Sendable {
    /// The whole allocation, released with this object.
    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The document, within `storage`.
    public let bytes: UnsafeBufferPointer<UInt8>

    /// Takes ownership of `storage` (`capacity` bytes from `ByteBuffer.allocate`), whose bytes
    /// `range` are the document.
    init(taking storage: UnsafeMutablePointer<UInt8>, capacity: Int, range: Range<Int>) {
        self.storage = storage
        self.capacity = capacity
        bytes = UnsafeBufferPointer(start: storage + range.lowerBound, count: range.count)
    }

    deinit { ByteBuffer.release(storage, count: capacity) }

    /// A copy of the bytes, for callers that need an array.
    public var array: [UInt8] { Array(bytes) }
}


/// One block of `size` bytes per thread, kept when a buffer of that size is let go and handed to
/// the thread's next buffer of that size instead of going back to malloc. A page of entities
/// (`RowCollectionDocument`) is written into such a block, and a block this
/// large is past glibc's per-thread cache: malloc spent about 560 instructions finding one and
/// free about 150 giving it back, on every page (`Person?$top=20`, callgrind).
/// The server sends a response and lets it go on the thread that wrote it, so the block a page
/// was written to is there for the next page of that thread.
///
/// Kept by a thread key of its own rather than in the service's `WorkerContext`: a block is let
/// go when the server drops a response it has sent, after the request's code has returned and
/// with no context in hand, and a response may be dropped on a thread other than its writer's
/// (a test, a caller of `ODataService.handle`): the key gives each block to whichever thread lets
/// it go, where a context's slot would be written by a thread it does not belong to.
enum SpareBlock {
    static let size = 8192

    /// The thread's spare block, freed when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { free($0) }) == 0 else { fatalError("no thread-specific key left") }
        return key
    }()

    /// The thread's spare block, or nil when it has none (its last one is still in use).
    static func take() -> UnsafeMutablePointer<UInt8>? {
        guard let spare = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return spare.assumingMemoryBound(to: UInt8.self)
    }

    /// Keeps `block`, of `size` bytes from malloc, as the thread's spare, or frees it when the
    /// thread has one already.
    static func keep(_ block: UnsafeMutablePointer<UInt8>) {
        let key = key
        if pthread_getspecific(key) == nil, pthread_setspecific(key, block) == 0 { return }
        free(block)
    }
}


/// The writer's methods that read text in place, through pointers: the JSON escaping, which
/// tests eight bytes at a time, and the appends of bytes lent by a caller.
extension JSONWriter {
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

    /// `text`'s UTF-8 with JSON escapes.
    public mutating func appendEscaped(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
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

    /// Appends bytes known to need no escaping.
    public mutating func appendVerbatim(_ utf8: UnsafeBufferPointer<UInt8>) { buffer.append(utf8) }

    /// Copies what was written at `range` (which lies before the current end) into `room`.
    @inline(__always)
    func copyWritten(_ range: Range<Int>, into room: inout ReservedBytes) { room.put(buffer.written(range)) }
}
