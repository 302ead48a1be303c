import ODataStore

/// The one owner of a connection's read transactions: every read of a request runs inside one
/// scope, a plain `BEGIN DEFERRED` … `COMMIT`, and so sees one snapshot of the database (a
/// page, its count, its expansions and the parent checked for a 404 agree while others commit).
///
/// In WAL mode a reader never blocks a writer, and no read outlives its request: the snapshot
/// is released at the end of the scope, so it never holds back the WAL's checkpoint, and the
/// next request sees every commit finished before it began. Only SQLite's public API is used.
public final class ReadScope {
    private unowned let database: Database
    /// Prepared on first use and kept: finding them in the statement cache hashed their text
    /// on every request.
    private var begin: Statement?
    private var commit: Statement?

    init(database: Database) {
        self.database = database
    }

    /// Runs `body`'s reads in one read transaction, begun and ended here. Inside a transaction
    /// already (a write's own reads, a scope within a scope), `body` just runs in it.
    public func run<T>(_ body: () throws -> T) throws -> T {
        guard database.isInAutocommit else { return try body() }
        let begin = try self.begin ?? database.makeStatement("BEGIN DEFERRED")
        self.begin = begin
        try begin.run()
        defer { end() }
        return try body()
    }

    /// Ends the transaction: COMMIT, which for a read only releases its snapshot. A statement
    /// still stepping (a failure left it mid-row) is reset first by its owner's `defer`, so
    /// COMMIT succeeds; should it not, ROLLBACK loses nothing either.
    private func end() {
        guard !database.isInAutocommit else { return }
        if let commit = try? self.commit ?? database.makeStatement("COMMIT") {
            self.commit = commit
            try? commit.run()
        }
        if !database.isInAutocommit { try? database.execute("ROLLBACK") }
    }

    /// Before the connection closes: its statements go first.
    func close() {
        (begin, commit) = (nil, nil)
    }
}
