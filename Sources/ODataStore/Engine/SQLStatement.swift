import EDM

/// A prepared statement of one `SQLConnection`, used by the connection's thread alone. Its
/// parameters are written `SQLDialect.placeholder(i)` in the text and bound in that order.
public protocol SQLStatement: AnyObject {
    /// Clears earlier bindings and binds `values` to the parameters in order.
    func bind(_ values: [SQLValue]) throws
    /// `bind(_:)` of EDM values, converted as `SQLValue(_:)` does: a key lookup's bindings
    /// without an array of converted values per request.
    func bind(_ values: [EDMValue]) throws
    /// Advances to the next row; false when the statement is done. A failure is thrown here,
    /// as a `StoreFailure`, and leaves the statement reset.
    func step() throws -> Bool
    /// Ends the current run, so that the statement can run again (and releases what it holds).
    func reset()
    /// The number of columns of a result row.
    var columnCount: Int { get }
    /// A column of the current row, owned.
    func value(at column: Int) -> SQLValue
    /// Reads the first `buffer.width` columns of the current row into `buffer`, each once and
    /// none copied where the engine can lend them: valid until the statement steps again or
    /// the buffer is read into again. Text is valid UTF-8 (repaired where the engine stored
    /// invalid bytes, exactly as `value(at:)` decodes it).
    func read(into buffer: inout RowBuffer)
}

extension SQLStatement {
    /// Runs the statement and returns every row, each as its column values.
    public func rows(_ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try bind(values)
        defer { reset() }
        var rows: [[SQLValue]] = []
        while try step() {
            rows.append((0..<columnCount).map { value(at: $0) })
        }
        return rows
    }

    /// Runs a statement that returns no rows (or whose rows are not wanted).
    public func run(_ values: [SQLValue] = []) throws {
        try bind(values)
        defer { reset() }
        while try step() {}
    }
}
