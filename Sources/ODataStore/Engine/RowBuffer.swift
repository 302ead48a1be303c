/// Room for the columns of one row, filled by an engine's statement (`SQLStatement.read(into:)`)
/// and reused for the next row. A page's loop allocates it once, and reading a row into it calls
/// no closure: the references a per-row closure captured cost an atomic retain and release
/// each, every row.
///
/// Unsafe memory, because the columns are lent, not copied: text and blobs point into the
/// engine's row (valid until its statement steps again), and the row of `StoredColumn`s is
/// allocated once and refilled, so that one `EntityRow` over it serves every row of a page.
/// The buffer is noncopyable, so that its memory is freed exactly once, when it goes.
public struct RowBuffer: ~Copyable {
    @usableFromInline let columns: UnsafeMutableBufferPointer<StoredColumn>
    /// Copies of text that was not valid UTF-8, owned until the next read.
    @usableFromInline var repairedTexts: [UnsafeMutableBufferPointer<UInt8>] = []

    /// The number of columns a read fills.
    public var width: Int { columns.count }

    public init(width: Int) {
        columns = .allocate(capacity: width)
    }

    /// Where every read puts its row: one row value can be built over it once and lent for
    /// each row in turn.
    var storage: UnsafeBufferPointer<StoredColumn> { UnsafeBufferPointer(columns) }

    deinit {
        repairedTexts.forEach { $0.deallocate() }
        columns.deallocate()
    }

    /// Called by a statement before it fills the buffer with the next row: what the previous
    /// row's repairs held is released.
    @inlinable
    public mutating func beginRow() {
        if !repairedTexts.isEmpty {
            repairedTexts.forEach { $0.deallocate() }
            repairedTexts.removeAll(keepingCapacity: true)
        }
    }

    /// Sets the column at `index` (below `width`; checked in release builds too).
    @inlinable
    public mutating func set(_ index: Int, _ column: StoredColumn) {
        precondition(index >= 0 && index < columns.count, "a row buffer's column is out of range")
        // StoredColumn holds no references: overwriting one needs no deinitialization.
        columns.initializeElement(at: index, to: column)
    }

    /// Sets the column at `index` to text whose bytes are not known to be valid UTF-8: lent as
    /// they are when they are ASCII, else as a repaired copy (invalid sequences replaced, as
    /// `String(decoding:as:)` does), owned until the next row.
    @inlinable
    public mutating func setText(_ index: Int, _ bytes: UnsafeBufferPointer<UInt8>) {
        guard !Self.isASCII(bytes) else { return set(index, .text(bytes)) }
        let repaired = Array(String(decoding: bytes, as: UTF8.self).utf8)
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: repaired.count)
        _ = copy.initialize(from: repaired)
        repairedTexts.append(copy)
        set(index, .text(UnsafeBufferPointer(copy)))
    }

    /// Whether no byte has its high bit set, a word at a time: it runs over every text column of
    /// every row read, where a test per byte cost about five instructions a byte. The bytes
    /// after the last whole word are read by loads that overlap it (or, below eight bytes, each
    /// other), as the ETag digest reads them: most names are shorter than a word.
    @inlinable
    public static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let raw = UnsafeRawPointer(base)
        let count = bytes.count
        var highBits: UInt64 = 0
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                highBits |= raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self)
                offset += 8
            }
            highBits |= raw.loadUnaligned(fromByteOffset: count - 8, as: UInt64.self)
        } else if count >= 4 {
            highBits = UInt64(raw.loadUnaligned(as: UInt32.self) | raw.loadUnaligned(fromByteOffset: count - 4, as: UInt32.self))
        } else {
            for index in 0..<count { highBits |= UInt64(base[index]) }
        }
        return highBits & 0x8080_8080_8080_8080 == 0
    }
}
