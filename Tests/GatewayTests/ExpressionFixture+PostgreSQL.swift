import EDM
import ODataStore
import ODataURI
import PostgresStore
import SQLiteStore

/// The expression fixtures on PostgreSQL: the same rows as a SQLite fixture, and the keys a
/// translated filter or ordering selects there, for the differential tests.
extension ExpressionFixture {
    /// The model's tables made in PostgreSQL and every row of the SQLite database copied in.
    static func copy(_ model: EntityModel, from sqlite: Database, to connection: PostgresConnection) throws {
        let schema = PostgresSchema(model: model)
        try schema.createSchema(on: connection)
        let dialect = PostgresDialect()
        for type in model.typesInDependencyOrder {
            let columns = type.columnNames
            let types = type.properties.map(\.type) + type.hiddenColumns.map(\.type)
            let select = "SELECT " + columns.map(SQLiteDialect().quote).joined(separator: ", ") + " FROM " + SQLiteDialect().quote(type.tableName)
            let insert = "INSERT INTO " + dialect.quote(type.tableName) + " (" + columns.map(dialect.quote).joined(separator: ", ")
                + ") VALUES (" + types.indices.map { dialect.parameter(dialect.placeholder($0), of: types[$0]) }.joined(separator: ", ") + ")"
            for row in try sqlite.rows(select, []) {
                _ = try connection.query(insert, row)
            }
        }
        try schema.advanceIdentities(on: connection)
    }

    /// Keys of the rows the filter selects, in key order, on PostgreSQL.
    static func keys(where filter: BoundExpression, on type: EntityType, in connection: PostgresConnection,
                     asCondition: Bool) throws -> (keys: [[SQLValue]], sql: String, parameters: [SQLValue]) {
        let dialect = PostgresDialect()
        var context = SQLBuildContext(dialect: dialect)
        let condition = asCondition
            ? ExpressionTranslator.condition(for: filter, in: &context)
            : "(" + ExpressionTranslator.sql(for: filter, in: &context) + ") IS TRUE"
        let keys = type.keyProperties.map { dialect.column(context.rootAlias, $0.columnName) }.joined(separator: ", ")
        var sql = "SELECT \(keys) FROM \(dialect.quote(type.tableName)) AS \(context.rootAlias)"
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        sql += " WHERE " + condition + " ORDER BY " + keys
        do {
            return (try connection.rows(sql, context.parameters), sql, context.parameters)
        } catch {
            throw PostgresFailure(sql: sql, parameters: context.parameters, error: error)
        }
    }

    /// Keys of all rows in the translated `$orderby` order, ties broken by the key, on PostgreSQL.
    static func orderedKeys(_ items: [OrderByItem], on type: EntityType, in connection: PostgresConnection) throws -> (keys: [[SQLValue]], sql: String) {
        let dialect = PostgresDialect()
        var context = SQLBuildContext(dialect: dialect)
        var terms: [String] = []
        for item in items {
            terms.append(dialect.orderTerm(ExpressionTranslator.sql(for: item.expression, in: &context), descending: item.descending))
        }
        let keys = type.keyProperties.map { dialect.column(context.rootAlias, $0.columnName) }
        var sql = "SELECT \(keys.joined(separator: ", ")) FROM \(dialect.quote(type.tableName)) AS \(context.rootAlias)"
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        sql += " ORDER BY " + (terms + keys.map { $0 + " ASC" }).joined(separator: ", ")
        do {
            return (try connection.rows(sql, context.parameters), sql)
        } catch {
            throw PostgresFailure(sql: sql, parameters: context.parameters, error: error)
        }
    }

    /// A statement PostgreSQL refused, with its SQL and parameters for the report.
    struct PostgresFailure: Error, CustomStringConvertible {
        let sql: String
        let parameters: [SQLValue]
        let error: any Error
        var description: String { "\(error)\nSQL: \(sql)\nparameters: \(parameters)" }

        /// A numeric value out of range (22003), as a floating product beyond a double's range is.
        var isOutOfRange: Bool { (error as? PostgresError)?.sqlState == "22003" }
    }
}
