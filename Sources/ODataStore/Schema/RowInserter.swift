import EDM

/// Inserts one row of an entity type's table, column by column; columns left nil take their
/// default (an identity key is assigned by the engine and returned, `RETURNING`).
public struct RowInserter {
    public let connection: any SQLConnection

    public init(connection: any SQLConnection) { self.connection = connection }

    /// - Parameter columns: one entry per stored column of `type`, in stored-column order.
    /// - Returns: the identity key the engine assigned, when the type's key is one.
    @discardableResult
    public func insert(_ type: EntityType, columns: [SQLValue?]) throws -> SQLValue? {
        precondition(columns.count == type.columnCount)
        let dialect = connection.dialect
        let names = type.columnNames
        var used: [String] = []
        var values: [SQLValue] = []
        for (index, value) in columns.enumerated() {
            guard let value else { continue }
            used.append(dialect.quote(names[index]))
            values.append(value)
        }
        var sql = used.isEmpty
            ? "INSERT INTO \(dialect.quote(type.tableName)) DEFAULT VALUES"
            : "INSERT INTO \(dialect.quote(type.tableName)) (\(used.joined(separator: ", "))) VALUES (\(used.indices.map(dialect.placeholder).joined(separator: ", ")))"
        let identityKey = type.keyProperties.count == 1 && type.keyProperties[0].isStoreGenerated ? type.keyProperties[0] : nil
        if let identityKey { sql += " RETURNING " + dialect.quote(identityKey.columnName) }
        let statement = try connection.statement(sql)
        try statement.bind(values)
        defer { statement.reset() }
        var identity: SQLValue?
        while try statement.step() {
            if identityKey != nil { identity = statement.value(at: 0) }
        }
        return identity
    }
}
