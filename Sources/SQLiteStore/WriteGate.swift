import CSQLite
import ODataStore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The one door through which every write of this process reaches one database file: its
/// writes share one connection, and writes that arrive together commit together (group commit).
///
/// A commit with `synchronous=FULL` waits for the disk (`fdatasync` of the WAL), and SQLite
/// admits one writer at a time, so one commit per write bounds a process by its disk's sync
/// rate. Here each write runs in a savepoint of the transaction that is open on the gate's
/// connection (`write`), and a committer thread commits that transaction as soon as it holds
/// a write and no other write waits to join it (for at most `joinWindow`): the writes that ran
/// while the previous commit waited for the disk share the next one. A write counts only once
/// its commit is decided (`PendingCommit`): its caller must not acknowledge it before. So a
/// write is acknowledged only when it is durable, and others see it only then too, as with a
/// commit of its own.
///
/// - A write that fails rolls back to its savepoint: the writes around it are unaffected.
/// - An error after which SQLite rolls the whole transaction back (a full disk, an I/O error)
///   fails every write of the open group; a failed commit fails every write of its group.
///   Nothing is acknowledged that is not committed.
/// - One connection for all writes also keeps its page cache: SQLite empties a connection's
///   cache whenever another connection has written since it last looked, so writers that take
///   turns on their own connections read their pages from the OS again at every write.
public final class WriteGate: @unchecked Sendable {
    private let path: String

    /// Guards everything below: the connection is used by one thread at a time. Its condition
    /// is signalled when a write joins the open group, and when the gate closes.
    private let lock = ConditionLock()
    /// Opened at the first write, so that a database that cannot be written fails writes
    /// rather than the service's start.
    private var database: Database?
    private var transactionOpen = false
    /// The writes whose changes the open transaction holds, waiting for its commit.
    private var openGroup: [PendingCommit] = []
    /// Writes waiting for the mutex (changed outside it): the committer lets them join the
    /// open group before it commits, up to `groupLimit` writes and for at most `joinWindow`
    /// seconds (a writer counted here may have been preempted before it reached the mutex).
    private let writesWaiting = Atomic<Int>(0)
    private let groupLimit = 64
    private let joinWindow: Double
    private var committer: pthread_t?
    private var closed = false
    private var counts = Statistics()

    /// What the gate has committed so far (for logs and tests).
    public struct Statistics: Sendable, Equatable {
        /// Transactions committed, each holding one or more writes.
        public var commits = 0
        public var writesCommitted = 0
    }

    public var statistics: Statistics { lock.withLock { counts } }

    /// - Parameter joinWindow: the longest the committer waits for writes that wait to join its
    ///   group, in seconds (tests that need a group to form under any load make it long).
    public init(path: String, joinWindow: Double = 0.001) {
        self.path = path
        self.joinWindow = joinWindow
    }

    deinit { close() }

    /// Runs `body` on the gate's connection inside the open group transaction, in a savepoint
    /// of its own: when `body` throws, its changes are rolled back and the error rethrown.
    /// Otherwise its changes are in the transaction but not yet durable: the caller must wait
    /// for the returned commit before it acknowledges them.
    ///
    /// `body` must do all its work through the connection it is given, and must not wait for
    /// another write (the gate is held while it runs).
    public func write<T>(_ body: (Database) throws -> T) throws -> (T, PendingCommit) {
        if !lock.tryLock() {
            writesWaiting.add(1, ordering: .relaxed)
            lock.lock()
            writesWaiting.subtract(1, ordering: .relaxed)
        }
        let database: Database
        do {
            database = try openedForWrite()
            try database.cachedStatement("SAVEPOINT write").run()
        } catch {
            abandonTransactionIfEmpty()
            leave()
            throw error
        }
        let value: T
        do {
            value = try body(database)
            try database.cachedStatement("RELEASE write").run()
        } catch {
            let lost = rollBack(database)
            leave()
            finish(lost, failure: SQLiteError(code: SQLITE_ABORT, message: "The transaction this write shared with others was rolled back by another write's failure."))
            throw error
        }
        let commit = PendingCommit()
        openGroup.append(commit)
        if committer == nil {
            // No committer thread could be started: this write commits alone, now.
            let (group, failure) = commitOpenGroup()
            lock.unlock()
            finish(group, failure: failure)
        } else {
            leave()
        }
        return (value, commit)
    }

    /// Commits what is pending, stops the committer and closes the connection.
    public func close() {
        let thread: pthread_t? = lock.withLock {
            guard !closed else { return nil }
            closed = true
            lock.signal()
            return committer
        }
        if let thread { pthread_join(thread, nil) }
        lock.withLock { database = nil }
    }

    // MARK: Under the mutex

    /// Unlocks, waking the committer if a group waits for it.
    private func leave() {
        if !openGroup.isEmpty { lock.signal() }
        lock.unlock()
    }

    /// The connection, with a transaction open on it; the first call opens the connection and
    /// starts the committer.
    private func openedForWrite() throws -> Database {
        guard !closed else { throw SQLiteError(code: SQLITE_MISUSE, message: "The database's write gate is closed.") }
        let database: Database
        if let opened = self.database {
            database = opened
        } else {
            database = try Database(path: path)
            try database.configureForService()
            self.database = database
            startCommitter()
        }
        if !transactionOpen {
            // IMMEDIATE takes the write lock now: another process's writer is waited for here
            // (busy timeout), never in the middle of a write.
            try database.cachedStatement("BEGIN IMMEDIATE").run()
            transactionOpen = true
        }
        return database
    }

    /// After a write failed: undoes its savepoint. When SQLite rolled the whole transaction
    /// back, or the savepoint cannot be undone, the group's other writes are lost with it:
    /// returns them, to be failed.
    private func rollBack(_ database: Database) -> [PendingCommit] {
        if transactionOpen && !database.isInAutocommit {
            do {
                try database.cachedStatement("ROLLBACK TO write").run()
                try database.cachedStatement("RELEASE write").run()
                abandonTransactionIfEmpty()
                return []
            } catch {}
        }
        try? database.cachedStatement("ROLLBACK").run()
        transactionOpen = false
        defer { openGroup = [] }
        return openGroup
    }

    /// A transaction that holds no write is rolled back rather than left holding the lock.
    private func abandonTransactionIfEmpty() {
        if transactionOpen && openGroup.isEmpty, let database {
            try? database.cachedStatement("ROLLBACK").run()
            transactionOpen = false
        }
    }

    /// Without its own thread the gate still works: each write then commits alone.
    private func startCommitter() {
        committer = POSIXThread.start { [self] in commitUntilClosed() }
    }

    // MARK: The committer

    private func commitUntilClosed() {
        lock.lock()
        while true {
            while !closed && openGroup.isEmpty { lock.wait() }
            if openGroup.isEmpty { break }
            let deadline = POSIXThread.deadline(after: joinWindow)
            while !closed && writesWaiting.load(ordering: .relaxed) > 0 && openGroup.count < groupLimit {
                if !lock.wait(until: deadline) { break }
            }
            let (group, failure) = commitOpenGroup()
            lock.unlock()
            finish(group, failure: failure)
            lock.lock()
        }
        lock.unlock()
    }

    /// Commits the open transaction (under the mutex) and returns its writes with the outcome.
    private func commitOpenGroup() -> ([PendingCommit], SQLiteError?) {
        let group = openGroup
        openGroup = []
        transactionOpen = false
        guard let database else { return (group, SQLiteError(code: SQLITE_MISUSE, message: "The database's write gate is closed.")) }
        do {
            try database.cachedStatement("COMMIT").run()
            counts.commits += 1
            counts.writesCommitted += group.count
            return (group, nil)
        } catch {
            try? database.cachedStatement("ROLLBACK").run()
            return (group, error as? SQLiteError ?? SQLiteError(code: SQLITE_ERROR, message: String(describing: error)))
        }
    }

    /// Decides the writes' commits (outside the mutex).
    private func finish(_ group: [PendingCommit], failure: SQLiteError?) {
        for commit in group {
            commit.decide(failure)
        }
    }
}
