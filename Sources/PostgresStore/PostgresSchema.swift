import EDM
import ODataStore

/// The PostgreSQL tables of a model, and the check that an existing database holds them: one
/// table per entity type, its key as primary key (an identity column when the store generates
/// it), foreign keys with their constraints and an index on each, and an index on every
/// property the schema marks store:Indexed. Types: see `PostgresDialect.columnType`; a Decimal
/// is NUMERIC with the property's precision and scale, so it is kept exactly.
///
/// Nothing here drops or alters a table: a database whose tables differ from the model is
/// refused with the differences named (`PostgresSchemaMismatch`).
public struct PostgresSchema: Sendable {
    public let model: EntityModel
    private static let dialect = PostgresDialect()

    public init(model: EntityModel) { self.model = model }

    /// The column type of a property, with a Decimal's facets.
    static func columnType(_ property: Property) -> String {
        if property.type == .decimal, let precision = property.precision {
            return "NUMERIC(" + String(precision) + "," + String(property.scale ?? 0) + ")"
        }
        return dialect.columnType(property.type)
    }

    /// The DDL statements, principals before dependents.
    public var statements: [String] {
        let q = Self.dialect.quote
        var statements: [String] = []
        for type in model.typesInDependencyOrder {
            statements.append(createTable(type))
            for property in type.properties where property.isIndexed && !(property.isKey && type.keyProperties.count == 1) {
                let columns = [property.columnName] + property.indexedWith.compactMap { type.property(named: $0)?.columnName }
                let name = "ix_" + type.tableName + "_" + columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS " + q(name) + " ON " + q(type.tableName)
                                  + " (" + columns.map(q).joined(separator: ", ") + ")")
            }
            for association in model.associations where association.dependent === type {
                let fk = association.foreignKey
                let name = "ix_" + type.tableName + "_" + fk.columns.joined(separator: "_")
                statements.append("CREATE INDEX IF NOT EXISTS " + q(name) + " ON " + q(type.tableName)
                                  + " (" + fk.columns.map(q).joined(separator: ", ") + ")")
            }
        }
        return statements
    }

    private func createTable(_ type: EntityType) -> String {
        let q = Self.dialect.quote
        var lines: [String] = []
        let singleIdentityKey = type.keyProperties.count == 1 && type.keyProperties[0].isStoreGenerated
        for property in type.properties {
            var line = q(property.columnName) + " "
            line += singleIdentityKey && property.isKey ? Self.dialect.identityKeyColumn(property.type) : Self.columnType(property)
            if !property.isNullable && !(singleIdentityKey && property.isKey) { line += " NOT NULL" }
            lines.append(line)
        }
        for column in type.hiddenColumns {
            let association = model.associations.first { $0.dependent === type && $0.foreignKey.columns.contains(column.name) }
            let optional = association?.foreignKey.isOptional ?? true
            lines.append(q(column.name) + " " + Self.dialect.columnType(column.type) + (optional ? "" : " NOT NULL"))
        }
        if !singleIdentityKey {
            lines.append("PRIMARY KEY (" + type.keyProperties.map { q($0.columnName) }.joined(separator: ", ") + ")")
        }
        for association in model.associations where association.dependent === type {
            let fk = association.foreignKey
            let principal = association.principal
            var line = "FOREIGN KEY (" + fk.columns.map(q).joined(separator: ", ") + ") REFERENCES "
                + q(principal.tableName) + " (" + principal.keyProperties.map { q($0.columnName) }.joined(separator: ", ") + ")"
            if fk.cascadesOnDelete { line += " ON DELETE CASCADE" }
            lines.append(line)
        }
        return "CREATE TABLE IF NOT EXISTS " + q(type.tableName) + " (\n  " + lines.joined(separator: ",\n  ") + "\n)"
    }

    /// Creates every table and index, in one transaction.
    public func createSchema(on connection: PostgresConnection) throws {
        try connection.transaction(.write) {
            for statement in statements { try connection.execute(statement) }
        }
    }

    /// Moves each identity key's sequence past the largest key stored, so that rows loaded with
    /// their keys (the seed) are not handed out again.
    public func advanceIdentities(on connection: PostgresConnection) throws {
        let q = Self.dialect.quote
        for type in model.entityTypes where type.keyProperties.count == 1 && type.keyProperties[0].isStoreGenerated {
            let key = type.keyProperties[0].columnName
            _ = try connection.rows("SELECT setval(pg_get_serial_sequence($1, $2), COALESCE((SELECT max(" + q(key) + ") FROM "
                                    + q(type.tableName) + "), 0) + 1, false)", [.text(q(type.tableName)), .text(key)])
        }
    }

    /// What the database holds of the model's tables, in the connection's current schema.
    public enum State: Equatable, Sendable {
        /// None of the model's tables.
        case empty
        /// Every table, each with the columns the model needs.
        case matching
        /// Some tables or columns missing or different: each difference, in words.
        case different([String])
    }

    /// Compares the database's tables with the model's, reading the catalog only.
    public func state(of connection: PostgresConnection) throws -> State {
        let rows = try connection.rows("""
            SELECT c.relname, a.attname, format_type(a.atttypid, a.atttypmod), a.attnotnull, a.atthasdef OR a.attidentity <> ''
            FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
            JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
            WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')
            """)
        var tables: [String: [String: (type: String, notNull: Bool, hasDefault: Bool)]] = [:]
        for row in rows {
            guard case .text(let table) = row[0], case .text(let column) = row[1], case .text(let type) = row[2] else { continue }
            tables[table, default: [:]][column] = (type, row[3] == .integer(1), row[4] == .integer(1))
        }
        let present = model.entityTypes.filter { tables[$0.tableName] != nil }
        if present.isEmpty { return .empty }
        var differences: [String] = []
        for type in model.entityTypes {
            guard let columns = tables[type.tableName] else {
                differences.append("table \"\(type.tableName)\" is missing")
                continue
            }
            var expected: [(name: String, type: String, nullable: Bool)] = type.properties.map {
                ($0.columnName, Self.catalogType(Self.columnType($0)), $0.isNullable && !$0.isKey)
            }
            for column in type.hiddenColumns {
                let association = model.associations.first { $0.dependent === type && $0.foreignKey.columns.contains(column.name) }
                expected.append((column.name, Self.catalogType(Self.dialect.columnType(column.type)),
                                 association?.foreignKey.isOptional ?? true))
            }
            for column in expected {
                guard let found = columns[column.name] else {
                    differences.append("table \"\(type.tableName)\" has no column \"\(column.name)\"")
                    continue
                }
                if found.type != column.type {
                    differences.append("column \"\(type.tableName)\".\"\(column.name)\" is \(found.type), the schema needs \(column.type)")
                }
                if column.nullable && found.notNull {
                    differences.append("column \"\(type.tableName)\".\"\(column.name)\" is NOT NULL, the schema allows null")
                }
            }
            let known = Set(expected.map(\.name))
            for (name, found) in columns where !known.contains(name) && found.notNull && !found.hasDefault {
                differences.append("table \"\(type.tableName)\" has a column \"\(name)\" the schema does not know, NOT NULL without a default")
            }
        }
        return differences.isEmpty ? .matching : .different(differences.sorted())
    }

    /// The name `format_type` gives a column type of the DDL above.
    private static func catalogType(_ ddl: String) -> String {
        switch ddl {
        case "BOOLEAN": return "boolean"
        case "SMALLINT": return "smallint"
        case "INTEGER": return "integer"
        case "BIGINT": return "bigint"
        case "DOUBLE PRECISION": return "double precision"
        case "BYTEA": return "bytea"
        case "NUMERIC": return "numeric"
        case _ where ddl.hasPrefix("TEXT"): return "text"
        case _ where ddl.hasPrefix("NUMERIC("): return "numeric(" + ddl.dropFirst("NUMERIC(".count)
        default: return ddl.lowercased()
        }
    }

    /// Checks the database before serving it: creates the tables when it has none (returning
    /// true, so that the caller loads the seed), accepts it when they match, and refuses it,
    /// naming every difference, when they do not.
    @discardableResult
    public func prepare(_ connection: PostgresConnection) throws -> Bool {
        switch try state(of: connection) {
        case .empty:
            try createSchema(on: connection)
            return true
        case .matching:
            return false
        case .different(let differences):
            throw PostgresSchemaMismatch(differences: differences)
        }
    }
}

/// A database whose tables are not the model's: the gateway will not serve it, nor change it.
public struct PostgresSchemaMismatch: Error, CustomStringConvertible, Sendable {
    public let differences: [String]

    public var description: String {
        "the PostgreSQL database's tables do not match the schema: " + differences.joined(separator: "; ")
            + ". Nothing was changed; use an empty database, or migrate this one to the schema."
    }
}
