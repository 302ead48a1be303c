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
    /// statement and the COMMIT with the last (or, when the last is not known, is not waited
    /// for), so a read costs a round trip per statement, as it would without a transaction,
    /// and a read of several still sees one snapshot.
    ///
    /// A scope of one statement (`.singleStatement`) runs it without BEGIN and COMMIT: one
    /// statement is its own snapshot, and the server then runs one statement, not three. Should
    /// `body` run a second statement all the same, that statement is refused before it is sent
    /// (it would see another snapshot), the misprediction is counted (`readScopeTally`) and
    /// `body` runs again in a snapshot transaction: the answer stays right, and tests, which
    /// require the count to stay zero, find the read that mispredicted.
    public func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T {
        if isInTransaction || snapshotScope != nil { return try body() }
        if shape == .singleStatement {
            readScopeTally.countSingleStatementScope()
            snapshotScope = SnapshotScope(inTransaction: false, expected: 1)
            let outcome = Result { try body() }
            // Checked whatever `body` did with the refusal: it may have caught it.
            let scope = snapshotScope
            snapshotScope = nil
            guard let scope, scope.overran else { return try outcome.get() }
            readScopeTally.countOverrun(secondStatement: scope.refusedSQL)
        }
        return try snapshotTransaction(body)
    }

    /// The BEGIN travels with the first statement. The COMMIT travels with the last, when the
    /// last scope that began with the same statement ran as many: reads of one shape run the
    /// same statements, and the server is then woken once less. Otherwise it is sent after
    /// `body`, without waiting. A scope that runs more statements than expected has its extra
    /// statement refused (the snapshot ended) and runs again with its COMMIT after it; its
    /// first statement is not predicted again.
    private func snapshotTransaction<T>(_ body: () throws -> T) throws -> T {
        beginWithNextStatement(PostgresTransactionMode.readSnapshot.begin)
        snapshotScope = SnapshotScope(inTransaction: true)
        let outcome = Result { try body() }
        let scope = snapshotScope ?? SnapshotScope(inTransaction: true)
        snapshotScope = nil
        if scope.overran, let first = scope.firstSQL {
            if unpredictableScopes.count >= Self.preparedStatementLimit { unpredictableScopes.removeAll() }
            unpredictableScopes.insert(first)
            scopeLengths[first] = nil
            readScopeTally.countEarlyCommitOverrun()
            dropDeferredBegin()
            rollBack()
            return try snapshotTransaction(body)
        }
        let result: T
        do {
            result = try outcome.get()
        } catch {
            dropDeferredBegin()
            rollBack()
            throw error
        }
        if scope.ended {
            readScopeTally.countEarlyCommit()
        } else {
            // A scope of one statement is not a shape's: a read of several ends after one
            // when its entity is missing.
            if let first = scope.firstSQL, scope.statements > 1, !unpredictableScopes.contains(first), scopeLengths[first] == nil {
                if scopeLengths.count >= Self.preparedStatementLimit { scopeLengths.removeAll() }
                scopeLengths[first] = scope.statements
            }
            if !commitWithoutWaiting() { rollBack() }
        }
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
