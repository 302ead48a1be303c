import EDM

/// One connection of an SQL engine, used by one thread at a time: what the engine-neutral
/// statement builders (`EntityReader`, `EntityWriter`, `RowInserter`, `SchemaBuilder`,
/// `SeedLoader`) run their SQL on. An engine implements it (SQLite: `Database`) beside its
/// `SQLDialect`, its `SQLStatement` and its `EntityStore`.
///
/// Statements are prepared once per connection and kept there (as GRDB keeps one statement
/// cache per database connection): plans and builders hold SQL text (`StatementKey`), never an
/// engine's statement, so the same plan serves every engine and every connection.
public protocol SQLConnection: AnyObject {
    /// The SQL this connection speaks.
    var dialect: any SQLDialect { get }

    /// The connection's prepared statement for `key`'s text, prepared on first use and kept in
    /// its bounded statement cache. Its parameters are unbound; the caller binds, steps and resets it.
    func statement(_ key: StatementKey) throws -> any SQLStatement

    /// Runs `body`'s reads in one consistent snapshot, released when it returns; inside a
    /// transaction already (a write's own reads, a scope within a scope), `body` just runs in it.
    /// The engine's snapshot policy lives here and nowhere else. With `.singleStatement` the
    /// engine may skip the transaction; `body` must then have no effect beyond its result,
    /// since a scope that runs a second statement all the same may be run again in a transaction.
    func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T

    /// Runs `body` in one transaction: committed whole when it returns, rolled back whole when it throws.
    func transaction<T>(_ body: () throws -> T) throws -> T

    /// Runs SQL that takes no parameters and returns no rows (DDL).
    func execute(_ sql: String) throws

    /// Whether a table of this name exists (schema introspection: a new database has none).
    func tableExists(_ name: String) throws -> Bool
}

extension SQLConnection {
    /// A read scope of any number of statements.
    public func readScope<T>(_ body: () throws -> T) throws -> T {
        try readScope(.severalStatements, body)
    }

    /// `statement(_:)` for SQL text; the text is hashed at each call, so hot paths keep a `StatementKey`.
    public func statement(_ sql: String) throws -> any SQLStatement {
        try statement(StatementKey(sql))
    }

    /// Every row of a query, each as its column values.
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try statement(sql).rows(values)
    }
}
