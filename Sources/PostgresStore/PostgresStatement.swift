import EDM
import ODataStore

/// A statement of a `PostgresConnection`, as the engine-neutral builders use one
/// (`SQLStatement`): bound, then stepped row by row through the result of one run. The server's
/// prepared statement belongs to the connection (re-prepared after a reconnect); this holds
/// the bindings and the current result.
public final class PostgresStatement: SQLStatement {
    private unowned let connection: PostgresConnection
    public let sql: String
    private var parameters: [SQLValue] = []
    private var result: PostgresResult?
    /// The current row of `result`; -1 before the first step.
    private var row = -1

    init(connection: PostgresConnection, sql: String) {
        self.connection = connection
        self.sql = sql
    }

    public func bind(_ values: [SQLValue]) throws {
        reset()
        parameters = values
    }

    public func bind(_ values: [EDMValue]) throws {
        reset()
        parameters = values.map(SQLValue.init)
    }

    /// The first step runs the statement and fetches its rows; each step moves to the next.
    public func step() throws -> Bool {
        if result == nil {
            do {
                result = try connection.query(sql, parameters)
            } catch {
                reset()
                throw error
            }
            row = -1
        }
        row += 1
        return row < result!.rowCount
    }

    public func reset() {
        result = nil
        row = -1
    }

    public var columnCount: Int { result?.columnCount ?? 0 }

    public func value(at column: Int) -> SQLValue {
        guard let result, row >= 0, row < result.rowCount else { return .null }
        return result.value(row: row, column: column)
    }

    /// Text and blobs are lent from the result, valid until the statement runs again or is reset.
    /// The server sends valid UTF-8 (the connection's client encoding), so text needs no repair.
    public func read(into buffer: inout RowBuffer) {
        buffer.beginRow()
        guard let result, row >= 0, row < result.rowCount else {
            for column in 0..<buffer.width { buffer.set(column, .null) }
            return
        }
        for column in 0..<buffer.width {
            buffer.set(column, result.storedColumn(row: row, column: column))
        }
    }
}
