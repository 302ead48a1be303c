import ODataStore

/// The connection as the engine-neutral builders use it: statements by SQL text, each read
/// request in one snapshot, transactions, DDL and the catalog.
extension PostgresConnection: SQLConnection {
    public var dialect: any SQLDialect { PostgresDialect() }

    public func statement(_ key: StatementKey) throws -> any SQLStatement {
        cachedStatement(key) { PostgresStatement(connection: self, sql: key.sql) }
    }

    /// `REPEATABLE READ READ ONLY`: every read of the request sees one snapshot. Inside a
    /// transaction (a write's own reads), `body` runs in it. The BEGIN travels with the first
    /// statement and the COMMIT is not waited for, so a read of one statement costs one round
    /// trip, as it would without a transaction, and a read of several still sees one snapshot.
    ///
    /// A scope of one statement (`.singleStatement`) runs it without BEGIN and COMMIT: one
    /// statement is its own snapshot, and the server then runs one statement, not three. Should
    /// `body` run a second statement all the same, that statement is refused before it is sent
    /// (it would see another snapshot), the misprediction is counted (`readScopeTally`) and
    /// `body` runs again in a snapshot transaction: the answer stays right, and tests, which
    /// require the count to stay zero, find the read that mispredicted.
    public func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T {
        if isInTransaction || loneStatementRead != .none { return try body() }
        if shape == .singleStatement {
            readScopeTally.countSingleStatementScope()
            loneStatementRead = .waiting
            let outcome = Result { try body() }
            // Checked whatever `body` did with the refusal: it may have caught it.
            let overran = loneStatementRead == .overran
            loneStatementRead = .none
            guard overran else { return try outcome.get() }
            readScopeTally.countOverrun(secondStatement: overrunSQL)
            overrunSQL = nil
        }
        return try snapshotTransaction(body)
    }

    private func snapshotTransaction<T>(_ body: () throws -> T) throws -> T {
        beginWithNextStatement(PostgresTransactionMode.readSnapshot.begin)
        let result: T
        do {
            result = try body()
        } catch {
            dropDeferredBegin()
            rollBack()
            throw error
        }
        if !commitWithoutWaiting() { rollBack() }
        return result
    }

    /// A write transaction (with its retries on serialization failures), or a savepoint inside one.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        guard isInTransaction else { return try transaction(.write, body) }
        try execute("SAVEPOINT nested")
        do {
            let result = try body()
            try execute("RELEASE SAVEPOINT nested")
            return result
        } catch {
            if !isBroken { try? execute("ROLLBACK TO SAVEPOINT nested") }
            throw error
        }
    }

    public func execute(_ sql: String) throws {
        let run: (String) throws(PostgresError) -> Void = executeSimple
        try run(sql)
    }

    public func tableExists(_ name: String) throws -> Bool {
        let rows = try query("SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() AND tablename = $1",
                             [.text(name)]).rows
        return rows.first?.first != .integer(0)
    }
}
