// Column values lent in place. With `EntityTag.swift` (which digests lent bytes and spells a
// digest into a serializer's buffer), the only file of the engine-neutral storage layer that
// holds unsafe pointers; the engines keep theirs in their binding files. Why: a response is written from the engine's own row, without copying each
// text and blob into a String or an Array first (a copy per column of every row read), and one
// row buffer, allocated once per statement run, serves every row of a page. Everything outside
// this file reads lent columns through `StoredColumn` and `LentRow`, inside the call that lends
// them; the engines' binding files (SQLite: `Statement.swift`) fill a `RowBuffer`.

/// A column value lent by where it is stored (a statement's current row, kept rows, or a record), valid
/// only inside the call that lends it: reading one costs no allocation.
public enum StoredColumn {
    case null
    case integer(Int64)
    case real(Double)
    /// Valid UTF-8.
    case text(UnsafeBufferPointer<UInt8>)
    case blob(UnsafeRawBufferPointer)

    /// An owned copy.
    public var value: SQLValue {
        switch self {
        case .null: .null
        case .integer(let i): .integer(i)
        case .real(let d): .real(d)
        case .text(let bytes): .text(String(decoding: bytes, as: UTF8.self))
        case .blob(let bytes): .blob(Array(bytes))
        }
    }
}

/// A row of lent columns (a `RowBuffer`'s), read by index: what an `EntityRow` is a view of.
/// Valid only inside the call that lends it; every index is checked, in release builds too.
/// Inlinable: the serializers read every column of every entity through it.
@usableFromInline
struct LentRow {
    @usableFromInline let columns: UnsafeBufferPointer<StoredColumn>

    fileprivate init(_ columns: UnsafeBufferPointer<StoredColumn>) { self.columns = columns }

    @inlinable
    subscript(index: Int) -> StoredColumn {
        precondition(index >= 0 && index < columns.count, "a lent row's column is out of range")
        return columns[index]
    }
}

extension StoredColumn {
    /// Lends an owned value to `body` as a stored column, valid only during the call.
    static func lend(_ value: SQLValue, _ body: (StoredColumn) -> Void) {
        switch value {
        case .null: body(.null)
        case .integer(let i): body(.integer(i))
        case .real(let d): body(.real(d))
        case .text(var text): text.withUTF8 { body(.text($0)) }
        case .blob(let bytes): bytes.withUnsafeBytes { body(.blob($0)) }
        }
    }
}

/// Room for the columns of one row, filled by an engine's statement (`SQLStatement.read(into:)`)
/// and reused for the next row. A page's loop allocates it once, and reading a row into it calls
/// no closure: the references a per-row closure captured cost an atomic retain and release
/// each, every row. Noncopyable, so that its memory is freed exactly once, when it goes.
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
    var storage: LentRow { LentRow(UnsafeBufferPointer(columns)) }

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

/// Rows copied out of a statement to be written after the statement has moved on: a
/// `$expand` level read by key list is read whole before its parents are written. Each row
/// keeps the layout of the `RowBuffer` it came from (an entity's columns, then those joined
/// to it), so an `EntityRow` lends it as it lends a statement's current row. Its text and
/// blob bytes are copied once, each into an allocation of its own that never moves; what is
/// lent stays valid as long as the rows are kept.
final class OwnedRows {
    /// The number of columns of each row.
    let width: Int
    private(set) var count = 0
    private var columns: UnsafeMutableBufferPointer<StoredColumn>
    private var copies: [UnsafeMutableRawBufferPointer] = []

    init(width: Int) {
        self.width = width
        columns = .allocate(capacity: max(width, 1) * 4)
    }

    deinit {
        copies.forEach { $0.deallocate() }
        columns.deallocate()
    }

    /// Appends a copy of the row `row` lends (its first `width` columns).
    func append(_ row: LentRow) {
        reserveRow()
        for index in 0..<width { columns.initializeElement(at: count * width + index, to: owned(row[index])) }
        count += 1
    }

    /// Appends a row of owned values.
    func append(_ values: [SQLValue]) {
        precondition(values.count == width, "a row of another width")
        reserveRow()
        for (index, value) in values.enumerated() {
            StoredColumn.lend(value) { columns.initializeElement(at: count * width + index, to: owned($0)) }
        }
        count += 1
    }

    /// The row at `index`, lent while these rows are kept. Checked in release builds too.
    subscript(index: Int) -> LentRow {
        precondition(index >= 0 && index < count, "an owned row out of range")
        return LentRow(UnsafeBufferPointer(rebasing: columns[index * width..<(index + 1) * width]))
    }

    /// Room for one more row; the rows lent so far must not be held across this (they are
    /// read only after the last row is appended).
    private func reserveRow() {
        guard (count + 1) * width > columns.count else { return }
        let grown = UnsafeMutableBufferPointer<StoredColumn>.allocate(capacity: columns.count * 2)
        _ = grown.initialize(fromContentsOf: columns[0..<count * width])
        columns.deallocate()
        columns = grown
    }

    /// `column`, its bytes copied into an allocation these rows own.
    private func owned(_ column: StoredColumn) -> StoredColumn {
        switch column {
        case .null, .integer, .real: return column
        case .text(let bytes):
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            copies.append(copy)
            copy.copyMemory(from: UnsafeRawBufferPointer(bytes))
            return .text(UnsafeBufferPointer(start: copy.baseAddress!.assumingMemoryBound(to: UInt8.self), count: bytes.count))
        case .blob(let bytes):
            let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(bytes.count, 1), alignment: 1)
            copies.append(copy)
            copy.copyMemory(from: bytes)
            return .blob(UnsafeRawBufferPointer(start: copy.baseAddress, count: bytes.count))
        }
    }
}
