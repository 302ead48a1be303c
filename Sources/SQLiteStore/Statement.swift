import CSQLite
import EDM
import ODataStore

// A binding file: it calls SQLite's C API (sqlite3_*). Unsafe code here, and why: a column's
// text and blob are lent as pointers into SQLite's row (`StoredColumn`), so a response is
// written without copying them, and a blob is bound from its bytes in place.

/// A prepared statement (`SQLStatement`). Owned by one `Database`, used by one thread at a time.
public final class Statement: SQLStatement {
    private let handle: OpaquePointer
    private unowned let database: Database
    public let sql: String

    init(database: Database, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard rc == SQLITE_OK, let statement else {
            throw database.error(code: rc, sql: sql)
        }
        self.handle = statement
        self.database = database
        self.sql = sql
    }

    deinit { sqlite3_finalize(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    /// Clears earlier bindings and binds `values` to the statement's `?` parameters in order.
    public func bind(_ values: [SQLValue]) throws(SQLiteError) {
        clearBindings()
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Clears earlier bindings and binds `values`, converted, to the `?` parameters in order:
    /// a key lookup's bindings without an array of converted values per request.
    public func bind(_ values: [EDMValue]) throws(SQLiteError) {
        clearBindings()
        for index in values.indices {
            try bind(SQLValue(values[index]), at: Int32(index + 1))
        }
    }

    private func clearBindings() {
        database.trace?(sql)
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// Binds `value` to the `?` parameter at `index` (from 1).
    private func bind(_ value: SQLValue, at index: Int32) throws(SQLiteError) {
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, index)
        case .integer(let i): rc = sqlite3_bind_int64(handle, index, i)
        case .real(let d): rc = sqlite3_bind_double(handle, index, d)
        case .text(let s):
            // The byte count, not -1: text may hold U+0000, which must not end it.
            rc = sqlite3_bind_text(handle, index, s, Int32(s.utf8.count), csqlite_transient())
        case .blob(let bytes):
            rc = bytes.withUnsafeBytes { raw in
                sqlite3_bind_blob(handle, index, raw.baseAddress, Int32(raw.count), csqlite_transient())
            }
        }
        guard rc == SQLITE_OK else { throw database.error(code: rc, sql: sql) }
    }

    /// Advances to the next row; false when the statement is done.
    public func step() throws(SQLiteError) -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(code: rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so that it can run again (and releases its read snapshot).
    public func reset() {
        sqlite3_reset(handle)
    }

    /// A column of the current row, owned (text decoded, invalid UTF-8 repaired).
    public func value(at column: Int) -> SQLValue { storedColumn(at: column).value }

    /// A column of the current row as SQLite holds it: text and blobs point into the row, and
    /// text is not checked for UTF-8.
    func storedColumn(at column: Int) -> StoredColumn {
        // The column's value is looked up once and read with the sqlite3_value functions: each
        // sqlite3_column_* call finds the column again and ends with SQLite's API-exit check,
        // and a text column took three of them (type, text, bytes). SQLite calls the value
        // "unprotected" because no mutex guards it; none guards the connection either
        // (SQLITE_OPEN_NOMUTEX), which only its one thread at a time uses.
        guard let value = sqlite3_column_value(handle, Int32(column)) else { return .null }
        switch sqlite3_value_type(value) {
        case SQLITE_NULL: return .null
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_BLOB:
            let start = sqlite3_value_blob(value)
            let length = Int(sqlite3_value_bytes(value))
            return .blob(UnsafeRawBufferPointer(start: length > 0 ? start : nil, count: length))
        default:
            let start = sqlite3_value_text(value)
            return .text(UnsafeBufferPointer(start: start, count: start == nil ? 0 : Int(sqlite3_value_bytes(value))))
        }
    }

    /// The first `buffer.width` columns of the current row, each read once and none copied:
    /// text and blobs point into SQLite's row, valid until the statement steps again or the
    /// next read. SQLite does not check text for UTF-8: text that is not valid is lent
    /// repaired, exactly as `value(at:)` returns it.
    public func read(into buffer: inout RowBuffer) {
        buffer.beginRow()
        for column in 0..<buffer.width {
            let stored = storedColumn(at: column)
            if case .text(let bytes) = stored { buffer.setText(column, bytes) } else { buffer.set(column, stored) }
        }
    }
}
