/// Room for the columns of one row, filled from a statement's current row and reused for the
/// next. A page's loop allocates it once, and reading a row into it calls no closure: the
/// references a per-row closure captured cost an atomic retain and release each, every row.
struct RowBuffer: ~Copyable {
    private let columns: UnsafeMutableBufferPointer<StoredColumn>
    /// Copies of text that was not valid UTF-8, owned until the next read.
    private var repairedTexts: [UnsafeMutableBufferPointer<UInt8>] = []

    init(width: Int) {
        columns = .allocate(capacity: width)
    }

    /// Where every `read` puts its row: one row value can be built over it once and lent for
    /// each row in turn.
    var storage: UnsafeBufferPointer<StoredColumn> { UnsafeBufferPointer(columns) }

    deinit {
        repairedTexts.forEach { $0.deallocate() }
        columns.deallocate()
    }

    /// The first `width` columns of `statement`'s current row, each read once and none copied:
    /// text and blobs point into SQLite's row, valid until the statement steps again or the
    /// next read. Text that is not valid UTF-8 is lent repaired, exactly as
    /// `Statement.value(at:)` returns it.
    mutating func read(_ statement: Statement) -> UnsafeBufferPointer<StoredColumn> {
        if !repairedTexts.isEmpty {
            repairedTexts.forEach { $0.deallocate() }
            repairedTexts.removeAll(keepingCapacity: true)
        }
        for column in columns.indices {
            var stored = statement.storedColumn(at: column)
            if case .text(let bytes) = stored, !Self.isASCII(bytes) {
                let repaired = Array(String(decoding: bytes, as: UTF8.self).utf8)
                let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: repaired.count)
                _ = copy.initialize(from: repaired)
                repairedTexts.append(copy)
                stored = .text(UnsafeBufferPointer(copy))
            }
            // StoredColumn holds no references: overwriting one needs no deinitialization.
            columns.initializeElement(at: column, to: stored)
        }
        return UnsafeBufferPointer(columns)
    }

    /// Whether no byte has its high bit set, a word at a time: it runs over every text column of
    /// every row read, where a test per byte cost about five instructions a byte. The bytes
    /// after the last whole word are read by loads that overlap it (or, below eight bytes, each
    /// other), as the ETag digest reads them: most names are shorter than a word.
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
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
