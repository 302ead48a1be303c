import CSQLite
import ODataStore

// A binding file: it calls SQLite's C API (sqlite3_*), through C pointers (the connection
// handle, error messages), which is why it holds unsafe code. The other binding files are
// Statement.swift and SQLFunctions.swift; no other file of the engine touches C memory.

/// SQLite's process-wide settings, applied once before the first connection opens (SQLite
/// refuses them afterwards, which is harmless: they only save time).
private let processWideConfiguration: Void = {
    _ = csqlite_disable_memory_statistics()
}()

/// One SQLite connection (`SQLConnection`). Not thread-safe: the gateway keeps one per worker thread.
public final class Database: SQLConnection {
    let handle: OpaquePointer
    public let path: String
    /// The connection's prepared statements, by their SQL text (`StatementKey`).
    private var statementCache: [StatementKey: Statement] = [:]
    /// Bounded so that a stream of distinct statements cannot grow memory without end.
    private let statementCacheLimit = 256
    /// Called with the SQL of every statement execution: for logs and for tests that count
    /// statements or check query plans. Nil by default. A `let`, read on every execution: a
    /// `var` of a class costs a runtime exclusivity check each time.
    public let trace: ((String) -> Void)?
    /// The SQL this connection speaks.
    public let dialect: any SQLDialect = SQLiteDialect()
    /// The only owner of this connection's read transactions (see `ReadScope`).
    private lazy var readTransactions = ReadScope(database: self)

    public init(path: String, readOnly: Bool = false, trace: ((String) -> Void)? = nil) throws(SQLiteError) {
        self.trace = trace
        _ = processWideConfiguration
        var db: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : (SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE)) | SQLITE_OPEN_NOMUTEX
        let rc = sqlite3_open_v2(path, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let db { sqlite3_close_v2(db) }
            throw SQLiteError(code: rc, message: message + " (\(path))")
        }
        let registered = SQLFunctions.register(on: db)
        guard registered == SQLITE_OK else {
            let message = String(cString: sqlite3_errmsg(db))
            sqlite3_close_v2(db)
            throw SQLiteError(code: registered, message: message + " (\(path))")
        }
        self.handle = db
        self.path = path
        sqlite3_extended_result_codes(db, 1)
        // Writers wait for each other rather than failing at once.
        sqlite3_busy_timeout(db, 5000)
    }

    deinit {
        readTransactions.close()
        statementCache.removeAll()
        sqlite3_close_v2(handle)
    }

    /// Applies the connection settings every gateway connection uses.
    /// WAL lets readers run beside one writer; synchronous=FULL makes a committed (and so
    /// acknowledged) write survive a crash of the process or the machine. A 16 MiB page cache
    /// (SQLite's default is 2 MiB) keeps the upper levels of every b-tree of a million-person
    /// database: a random key lookup with its expansions then reads 1.4 pages from the OS
    /// instead of 5.2, and two worker threads stay far inside the gateway's 100 MB budget.
    public func configureForService() throws(SQLiteError) {
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        try execute("PRAGMA foreign_keys=ON")
        try execute("PRAGMA cache_size=-\(Self.pageCacheKiB)")
    }

    /// Fails unless SQLite's `PRAGMA quick_check` finds the file sound: a damaged file (or one
    /// that is no database) is refused at start, rather than served until a request meets the
    /// damage and gets a 500. quick_check reads every page but skips the index-content
    /// comparison of `integrity_check`: about a second per GiB.
    public func checkIntegrity() throws(DatabaseIntegrityError) {
        let problems: [String]
        do {
            problems = try rows("PRAGMA quick_check(20)").compactMap { row in
                if case .text(let text)? = row.first { return text }
                return nil
            }
        } catch let error as SQLiteError {
            throw DatabaseIntegrityError(path: path, problems: [error.message])
        } catch {
            throw DatabaseIntegrityError(path: path, problems: ["\(error)"])
        }
        guard problems == ["ok"] else { throw DatabaseIntegrityError(path: path, problems: problems) }
    }

    /// The page cache of every gateway connection, in KiB.
    public static let pageCacheKiB = 16384

    /// The database's size in bytes as this connection's next read sees it: its pages, those
    /// still in the WAL included.
    public func databaseSize() throws -> Int64 {
        let size = try rows("SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()")
        guard case .integer(let bytes)? = size.first?.first else { return 0 }
        return bytes
    }

    /// Lets SQLite read the first `bytes` of the file through a memory map (`PRAGMA mmap_size`;
    /// 0 turns it off) rather than with a `pread` into its page cache for each page it lacks.
    /// The map reads the kernel's cached pages in place: a random `$expand` over a million people
    /// (a working set ten times the page cache) made 4.45 such calls per request (perf, eighth
    /// session). Mapped pages count in the process's RSS as file pages, which the kernel caches
    /// for a `pread` all the same. SQLite caps `bytes` at its build's limit.
    public func mapFile(upTo bytes: Int) throws(SQLiteError) {
        try execute("PRAGMA mmap_size=\(max(0, bytes))")
    }

    /// `mapFile(upTo: bytes)` if the file is larger than the page cache, which otherwise holds
    /// all of it after the first reads. There a mapped page costs more than a cached one: the
    /// blog's `$expand` at 1,000 people took about 2,100 more instructions mapped (callgrind;
    /// SQLite's WAL lookup for each mapped page, `sqlite3WalFindFrame`, was 600 of them).
    /// Decided now: a file that outgrows the cache later is mapped by connections opened after that.
    public func mapFileIfLargerThanCache(upTo bytes: Int) throws {
        guard try databaseSize() > Int64(Self.pageCacheKiB) * 1024 else { return }
        try mapFile(upTo: bytes)
    }

    func error(code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(code: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that take no parameters (DDL, pragmas).
    public func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &message)
        if rc != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(message)
            throw SQLiteError(code: rc, message: text, sql: sql)
        }
    }

    /// A statement prepared once per connection and reused: the same SQL text gives the same statement.
    public func cachedStatement(_ sql: String) throws(SQLiteError) -> Statement {
        try cachedStatement(StatementKey(sql))
    }

    public func statement(_ key: StatementKey) throws -> any SQLStatement {
        try cachedStatement(key)
    }

    private func cachedStatement(_ key: StatementKey) throws(SQLiteError) -> Statement {
        if let statement = statementCache[key] { return statement }
        let statement = try Statement(database: self, sql: key.sql)
        if statementCache.count >= statementCacheLimit { statementCache.removeAll(keepingCapacity: true) }
        statementCache[key] = statement
        return statement
    }

    /// A statement prepared for one use.
    public func makeStatement(_ sql: String) throws(SQLiteError) -> Statement {
        try Statement(database: self, sql: sql)
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `body` inside one transaction: it commits whole or rolls back whole.
    /// BEGIN IMMEDIATE takes the write lock at the start, so that two writers never deadlock on
    /// an upgrade. (The service's writes go through its `WriteGate` instead.) BEGIN, COMMIT and
    /// ROLLBACK are cached statements: parsing them anew each time cost time in the write lock.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try cachedStatement("BEGIN IMMEDIATE").run()
        do {
            let result = try body()
            try cachedStatement("COMMIT").run()
            return result
        } catch {
            try? cachedStatement("ROLLBACK").run()
            throw error
        }
    }

    /// Whether no transaction is open: SQLite rolls one back by itself after some errors.
    public var isInAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Every read scope a transaction, whatever its shape: SQLite's BEGIN and COMMIT are
    /// steps of cached statements in this process, not round trips to a server.
    public func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T {
        try readTransactions.run(body)
    }

    public func tableExists(_ name: String) throws -> Bool {
        try rows("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = ?", [.text(name)]).first?.first != .integer(0)
    }

    /// Every row of a query, uncached (for one-off statements such as checks).
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try makeStatement(sql).rows(values)
    }
}
