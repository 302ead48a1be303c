import EDM

/// Derives the SQLite tables of a model: one table per entity type, its key as primary key,
/// foreign keys with their constraints, an index on every foreign key so that navigation
/// and $expand never scan, and one on every property the schema marks store:Indexed.
public struct SchemaBuilder: Sendable {
    public let model: EntityModel

    public init(model: EntityModel) { self.model = model }

    /// SQLite's: the DDL below (AUTOINCREMENT, `sqlite_master`) is SQLite's too.
    private static let dialect = SQLiteDialect()

    /// The DDL statements, principals before dependents.
    public var statements: [String] {
        var statements: [String] = []
        for type in model.typesInDependencyOrder {
            statements.append(createTable(type))
            for property in type.properties where property.isIndexed && !(property.isKey && type.keyProperties.count == 1) {
                let columns = [property.columnName] + property.indexedWith.compactMap { type.property(named: $0)?.columnName }
                let name = "ix_" + type.tableName + "_" + columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS \(Self.dialect.quote(name)) ON \(Self.dialect.quote(type.tableName)) (\(columns.map(Self.dialect.quote).joined(separator: ", ")))")
            }
            for association in model.associations where association.dependent === type {
                let fk = association.foreignKey
                let name = "ix_" + type.tableName + "_" + fk.columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS \(Self.dialect.quote(name)) ON \(Self.dialect.quote(type.tableName)) (\(fk.columns.map(Self.dialect.quote).joined(separator: ", ")))")
            }
        }
        return statements
    }

    private func createTable(_ type: EntityType) -> String {
        var lines: [String] = []
        let singleIdentityKey = type.keyProperties.count == 1 && type.keyProperties[0].isStoreGenerated
        for property in type.properties {
            var line = Self.dialect.quote(property.columnName) + " " + Self.dialect.columnType(property.type)
            if singleIdentityKey && property.isKey {
                // An alias of the rowid; AUTOINCREMENT so that a deleted entity's URI never comes back.
                line += " PRIMARY KEY AUTOINCREMENT"
            }
            if !property.isNullable { line += " NOT NULL" }
            lines.append(line)
        }
        for column in type.hiddenColumns {
            let association = model.associations.first { $0.dependent === type && $0.foreignKey.columns.contains(column.name) }
            let optional = association?.foreignKey.isOptional ?? true
            lines.append(Self.dialect.quote(column.name) + " " + Self.dialect.columnType(column.type) + (optional ? "" : " NOT NULL"))
        }
        if !singleIdentityKey {
            lines.append("PRIMARY KEY (" + type.keyProperties.map { Self.dialect.quote($0.columnName) }.joined(separator: ", ") + ")")
        }
        for association in model.associations where association.dependent === type {
            let fk = association.foreignKey
            let principal = association.principal
            var line = "FOREIGN KEY (" + fk.columns.map(Self.dialect.quote).joined(separator: ", ") + ") REFERENCES "
                + Self.dialect.quote(principal.tableName) + " (" + principal.keyProperties.map { Self.dialect.quote($0.columnName) }.joined(separator: ", ") + ")"
            if fk.cascadesOnDelete { line += " ON DELETE CASCADE" }
            lines.append(line)
        }
        return "CREATE TABLE IF NOT EXISTS \(Self.dialect.quote(type.tableName)) (\n  " + lines.joined(separator: ",\n  ") + "\n)"
    }

    /// Creates every table and index that does not exist yet, in one transaction.
    public func createSchema(in database: Database) throws {
        try database.transaction {
            for statement in statements { try database.execute(statement) }
        }
    }

    /// True when the database has no table of the model yet.
    public func isEmpty(_ database: Database) throws -> Bool {
        let rows = try database.rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?",
                                     [.text(model.entityTypes[0].tableName)])
        return rows.first?.first == .integer(0)
    }
}
