import EDM
import ODataURI

/// Inserts, updates and deletes entities with parameterized SQL. It runs inside the caller's
/// transaction (one per request, or one per batch change set) and never commits itself, so a
/// request that fails half-way leaves no trace.
///
/// Before it writes, it checks what the schema declares about relationships, so that the
/// client learns which relationship a write breaks rather than a bare engine constraint code.
public struct EntityWriter {
    public let connection: any SQLConnection
    public let model: EntityModel

    public init(connection: any SQLConnection, model: EntityModel) {
        self.connection = connection
        self.model = model
    }

    // MARK: Reading back

    /// The stored row of the entity with these key column values, or nil; `locked` keeps it
    /// from other writers until the transaction ends, where the dialect has a row lock.
    public func row(_ type: EntityType, key: [SQLValue], locked: Bool = false) throws -> EntityRecord? {
        var sql = "SELECT " + type.columnNames.map(dialect.quote).joined(separator: ", ") + " FROM " + dialect.quote(type.tableName)
            + " WHERE " + keyCondition(type)
        if locked, let lock = dialect.rowLockClause { sql += lock }
        let statement = try connection.statement(sql)
        try statement.bind(key)
        defer { statement.reset() }
        guard try statement.step() else { return nil }
        return EntityRecord(type: type, values: (0..<type.columnCount).map { statement.value(at: $0) })
    }

    // MARK: Insert, update, delete

    /// Inserts a row and returns it as stored. `columns` has one entry per stored column; nil
    /// leaves the column to the engine (an identity key). Relationships are checked first.
    public func insert(_ type: EntityType, columns: [SQLValue?]) throws -> EntityRecord {
        try checkReferences(of: type, columns: columns.map { $0 ?? .null }, changed: nil)
        let identity: SQLValue?
        do {
            identity = try RowInserter(connection: connection).insert(type, columns: columns)
        } catch let error as any StoreFailure where error.isConstraintViolation {
            throw constraintError(error, type: type, key: type.keyProperties.map { columns[$0.columnIndex] ?? .null })
        }
        let key = identity.map { [$0] } ?? type.keyProperties.map { columns[$0.columnIndex] ?? .null }
        guard let stored = try row(type, key: key) else {
            throw StoreInconsistency(message: "the row inserted into \(type.tableName) cannot be read back")
        }
        return stored
    }

    /// Sets columns of a stored row and returns the row as it is now. Key columns never change.
    @discardableResult
    public func update(_ record: EntityRecord, changes: [Int: SQLValue]) throws -> EntityRecord {
        let type = record.type
        let keyIndexes = Set(type.keyProperties.map(\.columnIndex))
        let assignments = changes.keys.sorted().filter { !keyIndexes.contains($0) }
        guard !assignments.isEmpty else { return record }
        var columns = record.values
        for index in assignments { columns[index] = changes[index]! }
        try checkReferences(of: type, columns: columns, changed: Set(assignments))
        let names = type.columnNames
        let sql = "UPDATE " + dialect.quote(type.tableName) + " SET "
            + assignments.enumerated().map { dialect.quote(names[$1]) + " = " + dialect.placeholder($0) }.joined(separator: ", ")
            + " WHERE " + keyCondition(type, firstParameter: assignments.count)
        let key = record.keyColumnValues
        do {
            try connection.statement(sql).run(assignments.map { changes[$0]! } + key)
        } catch let error as any StoreFailure where error.isConstraintViolation {
            throw constraintError(error, type: type, key: key)
        }
        return try row(type, key: key) ?? record
    }

    /// Deletes an entity. Entities that refer to it are deleted with it where the schema says
    /// OnDelete Cascade; anywhere else they make the delete a conflict, named by relationship.
    public func delete(_ record: EntityRecord) throws {
        try checkDeletable(record, depth: 0)
        let type = record.type
        let sql = "DELETE FROM " + dialect.quote(type.tableName) + " WHERE " + keyCondition(type)
        do {
            try connection.statement(sql).run(record.keyColumnValues)
        } catch let error as any StoreFailure where error.isConstraintViolation {
            throw constraintError(error, type: type, key: record.keyColumnValues)
        }
    }

    // MARK: Helpers

    /// The SQL every statement is written in.
    var dialect: any SQLDialect { connection.dialect }

    /// `"k1" = ? AND "k2" = ?` over the key columns, in key order, from parameter `firstParameter` on.
    func keyCondition(_ type: EntityType, firstParameter: Int = 0) -> String {
        dialect.equality(columns: type.keyProperties.map(\.columnName), alias: nil, firstParameter: firstParameter)
    }

    /// `Person(1)`, `Warehouses(Region='north',Code=1)`: how messages name an entity.
    public static func describe(_ type: EntityType, key: [SQLValue]) -> String {
        let values = zip(type.keyProperties, key).map { EDMValue($1, as: $0.type) }
        return (type.entitySet?.name ?? type.name) + "(" + LiteralFormatter.keyPredicate(values, of: type) + ")"
    }

    public static func describe(_ record: EntityRecord) -> String { describe(record.type, key: record.keyColumnValues) }

    /// A constraint the engine enforced although the checks above passed (another program wrote
    /// the database, or a uniqueness rule the checks do not know). Still a clear 409.
    private func constraintError(_ error: any StoreFailure, type: EntityType, key: [SQLValue]) -> WriteError {
        switch error.violatedConstraint {
        case .uniqueKey?:
            return .conflict("An entity \(EntityWriter.describe(type, key: key)) already exists.")
        case .foreignKey?:
            return .conflict("The change to \(type.name) breaks a relationship of the schema: \(error.message).")
        default:
            return .conflict("The change to \(type.name) breaks a constraint of the database: \(error.message).")
        }
    }
}
