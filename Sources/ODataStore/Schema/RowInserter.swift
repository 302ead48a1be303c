import EDM

/// Inserts one row of an entity type's table, column by column; columns left nil take their
/// default (an identity key is assigned by SQLite).
public struct RowInserter {
    public let database: Database

    public init(database: Database) { self.database = database }

    /// - Parameter columns: one entry per stored column of `type`, in stored-column order.
    /// - Returns: the rowid SQLite assigned.
    @discardableResult
    public func insert(_ type: EntityType, columns: [SQLValue?]) throws -> Int64 {
        precondition(columns.count == type.columnCount)
        let names = type.columnNames
        var used: [String] = []
        var values: [SQLValue] = []
        for (index, value) in columns.enumerated() {
            guard let value else { continue }
            used.append(database.dialect.quote(names[index]))
            values.append(value)
        }
        let sql = used.isEmpty
            ? "INSERT INTO \(database.dialect.quote(type.tableName)) DEFAULT VALUES"
            : "INSERT INTO \(database.dialect.quote(type.tableName)) (\(used.joined(separator: ", "))) VALUES (\(used.indices.map(database.dialect.placeholder).joined(separator: ", ")))"
        try database.cachedStatement(sql).run(values)
        return database.lastInsertRowID
    }
}
