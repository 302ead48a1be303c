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
    /// for), so a read costs at most a round trip per statement, as it would without a
    /// transaction, and a read of several still sees one snapshot. Once a read of the same plan
    /// (`.plannedStatements`) has shown that its later statements take only the first's
    /// parameters, they all travel with the first: one round trip (`ScopePlan`).
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
            snapshotScope = SnapshotScope(inTransaction: false, plan: nil, expected: 1)
            let outcome = Result { try body() }
            // Checked whatever `body` did with the refusal: it may have caught it.
            let scope = snapshotScope
            snapshotScope = nil
            guard let scope, scope.overran else { return try outcome.get() }
            readScopeTally.countOverrun(secondStatement: scope.refusedSQL)
        }
        let plan: Int? = if case .plannedStatements(let plan) = shape { plan } else { nil }
        return try snapshotTransaction(plan: plan, body)
    }

    /// The BEGIN travels with the first statement. The COMMIT travels with the last, when the
    /// last scope of the same plan (without one: that began with the same statement) ran as
    /// many: reads of one plan run the same statements, and the server is then woken once less.
    /// When each of that scope's later statements took only the first statement's parameters,
    /// they travel with the first too, and the scope waits for the server once (`ScopePlan`).
    /// Otherwise the COMMIT is sent after `body`, without waiting. A scope that runs more
    /// statements than expected, or another statement than the one sent ahead, has that
    /// statement refused (the snapshot ended) and runs again with its COMMIT after it; its plan
    /// is not predicted again (after another statement, only its later statements are not).
    private func snapshotTransaction<T>(plan: Int?, _ body: () throws -> T) throws -> T {
        beginWithNextStatement(PostgresTransactionMode.readSnapshot.begin)
        snapshotScope = SnapshotScope(inTransaction: true, plan: plan)
        let outcome = Result { try body() }
        let scope = snapshotScope ?? SnapshotScope(inTransaction: true, plan: plan)
        snapshotScope = nil
        if scope.overran, let first = scope.planKey {
            if scope.mispredicted, let plan = scopePlans[first] {
                // A read of the plan whose later statements took other values (a key read from
                // a row that happened to equal one of the first's): its length still holds.
                scopePlans[first] = plan.lengthOnly
            } else {
                if unpredictableScopes.count >= Self.preparedStatementLimit { unpredictableScopes.removeAll() }
                unpredictableScopes.insert(first)
                scopePlans[first] = nil
            }
            readScopeTally.countEarlyCommitOverrun()
            dropDeferredBegin()
            rollBack()
            return try snapshotTransaction(plan: plan, body)
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
            if let first = scope.planKey, scope.learningFrom != nil, scope.statements > 1 {
                if scopePlans.count >= Self.preparedStatementLimit { scopePlans.removeAll() }
                scopePlans[first] = ScopePlan(later: scope.observed)
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
