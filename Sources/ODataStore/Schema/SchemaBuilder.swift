import EDM

/// Derives the tables of a model, in any engine's dialect: one table per entity type, its key
/// as primary key, foreign keys with their constraints, an index on every foreign key so that
/// navigation and $expand never scan, and one on every property the schema marks store:Indexed.
public struct SchemaBuilder: Sendable {
    public let model: EntityModel
    /// The SQL of the engine the tables are for: column types and identity keys.
    public let dialect: any SQLDialect

    public init(model: EntityModel, dialect: any SQLDialect) {
        self.model = model
        self.dialect = dialect
    }

    /// The DDL statements, principals before dependents.
    public var statements: [String] {
        var statements: [String] = []
        for type in model.typesInDependencyOrder {
            statements.append(createTable(type))
            for property in type.properties where property.isIndexed && !(property.isKey && type.keyProperties.count == 1) {
                let columns = [property.columnName] + property.indexedWith.compactMap { type.property(named: $0)?.columnName }
                let name = "ix_" + type.tableName + "_" + columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS \(dialect.quote(name)) ON \(dialect.quote(type.tableName)) (\(columns.map(dialect.quote).joined(separator: ", ")))")
            }
            for association in model.associations where association.dependent === type {
                let fk = association.foreignKey
                let name = "ix_" + type.tableName + "_" + fk.columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS \(dialect.quote(name)) ON \(dialect.quote(type.tableName)) (\(fk.columns.map(dialect.quote).joined(separator: ", ")))")
            }
        }
        return statements
    }

    private func createTable(_ type: EntityType) -> String {
        var lines: [String] = []
        let singleIdentityKey = type.keyProperties.count == 1 && type.keyProperties[0].isStoreGenerated
        for property in type.properties {
            var line = dialect.quote(property.columnName) + " "
            line += singleIdentityKey && property.isKey ? dialect.identityKeyColumn(property.type) : dialect.columnType(property.type)
            if !property.isNullable { line += " NOT NULL" }
            lines.append(line)
        }
        for column in type.hiddenColumns {
            let association = model.associations.first { $0.dependent === type && $0.foreignKey.columns.contains(column.name) }
            let optional = association?.foreignKey.isOptional ?? true
            lines.append(dialect.quote(column.name) + " " + dialect.columnType(column.type) + (optional ? "" : " NOT NULL"))
        }
        if !singleIdentityKey {
            lines.append("PRIMARY KEY (" + type.keyProperties.map { dialect.quote($0.columnName) }.joined(separator: ", ") + ")")
        }
        for association in model.associations where association.dependent === type {
            let fk = association.foreignKey
            let principal = association.principal
            var line = "FOREIGN KEY (" + fk.columns.map(dialect.quote).joined(separator: ", ") + ") REFERENCES "
                + dialect.quote(principal.tableName) + " (" + principal.keyProperties.map { dialect.quote($0.columnName) }.joined(separator: ", ") + ")"
            if fk.cascadesOnDelete { line += " ON DELETE CASCADE" }
            lines.append(line)
        }
        return "CREATE TABLE IF NOT EXISTS \(dialect.quote(type.tableName)) (\n  " + lines.joined(separator: ",\n  ") + "\n)"
    }

    /// Creates every table and index that does not exist yet, in one transaction.
    public func createSchema(in connection: any SQLConnection) throws {
        try connection.transaction {
            for statement in statements { try connection.execute(statement) }
        }
    }

    /// True when the database has no table of the model yet.
    public func isEmpty(_ connection: any SQLConnection) throws -> Bool {
        try !connection.tableExists(model.entityTypes[0].tableName)
    }
}
