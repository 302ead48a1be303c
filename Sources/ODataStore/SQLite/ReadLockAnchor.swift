import CSQLite
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeps one of the WAL's read locks held by this process between requests, so that the read
/// transactions of the worker connections take that lock inside the process instead of with
/// two `fcntl` calls each.
///
/// SQLite makes the system call for a read lock only when no other connection of the same
/// process holds that lock already. Without an anchor, each read transaction locked and
/// unlocked a slot of the `-shm` file with `fcntl` while holding SQLite's shared-memory mutex,
/// so the worker threads also queued on that mutex in the kernel (`futex`): 1.8 `fcntl` and
/// 0.2 `futex` per `Person(n)`, and 0.7 to 0.9 context switches against the ceiling's 0.2.
///
/// A held read lock keeps its snapshot's frames in the WAL: checkpoints stop at it and the
/// WAL cannot start over from its beginning. So the anchor holds it only while nothing writes:
/// - this process's writers suspend it for their whole transaction, commit-time checkpoint
///   included (`WriteGate`), so checkpoints and restarts run as they would without it;
/// - every `tickInterval` it checks `PRAGMA data_version`; when another process changed the
///   database, it steps aside until a tick finds no change, and that writer's checkpoints and
///   restarts run as they would without it too.
/// Readers are unaffected: each read transaction still starts at the newest commit.
///
/// While it holds, the worker connections keep their read transactions between read requests
/// as well (`HeldSnapshot`, `holdSnapshots(of:)`); when it lets go, so do they.
///
/// It also spares them an `fstat` each. A read transaction takes the database's size from the
/// WAL's last commit, and asks the file system when the WAL has none yet, which is the case
/// after every start of a read-mostly gateway until its first write. So the anchor commits
/// one transaction at start that changes nothing (it sets `user_version` to its own value).
public final class ReadLockAnchor: @unchecked Sendable {
    public static let defaultTickInterval: Double = 0.1

    /// Nil once closed: dropping it closes the connection.
    private var database: Database?
    private let tickInterval: Double
    /// Guards the state below; its condition wakes the ticker when the anchor closes.
    private let lock = ConditionLock()
    private var ticker: pthread_t?

    private var holding = false
    /// Writes of this process waiting for the gate or running: while any is, the lock stays
    /// released and ticks leave it alone.
    private var pendingWrites = 0
    /// Another process wrote since the last tick: the lock stays released.
    private var steppedAside = false
    private var committedSinceTick = false
    private var lastDataVersion: Int64 = 0
    private var closed = false
    /// The worker connections' held snapshots, not kept alive by the anchor: each leaves the
    /// list when it retires (`HeldSnapshot.retire`), before its connection closes. Unretained
    /// rather than `weak`: a weak reference gives its object a side table, which made the
    /// retain and release of a snapshot in every request (`ODataService.handle`) take the
    /// runtime's slow path, 1.4% of a `Person(n)`'s samples under load (perf).
    private var snapshots: [Unmanaged<HeldSnapshot>] = []
    /// Whether those may hold a snapshot: the anchor holds. Read by every read request.
    private let mayHoldSnapshots = Atomic<Bool>(false)

    /// Opens its own connection to `path` and takes the read lock; `startTicking` starts the
    /// checks for other processes' writes.
    public init(path: String, tickInterval: Double = ReadLockAnchor.defaultTickInterval) throws(SQLiteError) {
        let database = try Database(path: path)
        try database.configureForService()
        self.database = database
        self.tickInterval = tickInterval
        // Only a saving: a database that refuses the write (another process writing) is served all the same.
        try? commitNothing()
        lastDataVersion = try dataVersion()
        try hold()
        setSnapshotsMayHold(holding)
    }

    deinit { close() }

    /// Whether the read lock is held now (for tests and logs).
    public var isHolding: Bool {
        lock.withLock { holding }
    }

    /// Releases the lock for a write transaction of this process, before it asks for the gate.
    public func suspend() {
        lock.withLock {
            pendingWrites += 1
            release()
            setSnapshotsMayHold(false)
        }
    }

    /// After that write committed or rolled back: takes the lock again unless another write
    /// of this process is pending.
    public func resume() {
        lock.withLock {
            pendingWrites -= 1
            committedSinceTick = true
            if pendingWrites == 0 && !steppedAside && !closed { try? hold() }
            setSnapshotsMayHold(holding)
        }
    }

    /// One check for other processes' writes (the ticker's work; tests call it directly).
    public func tick() {
        lock.withLock {
            // A worker that was busy when holding stopped may have missed the news.
            if !snapshotsMayHold { endIdleSnapshots() }
            guard pendingWrites == 0, !closed else { return }
            release()
            // Read outside a transaction: a connection sees others' commits only when it
            // starts one, and this statement starts its own.
            guard let version = try? dataVersion() else { return }
            steppedAside = version != lastDataVersion && !committedSinceTick
            lastDataVersion = version
            committedSinceTick = false
            if !steppedAside { try? hold() }
            setSnapshotsMayHold(holding)
        }
    }

    /// Lets the read transactions of `database`, a worker connection, stay open between read
    /// requests while the anchor holds (see `HeldSnapshot`). Does nothing where the connection
    /// cannot tell whether another committed (a WAL index that is not a shared map).
    public func holdSnapshots(of database: Database) {
        guard database.heldSnapshot == nil,
              case .text(let mode)? = try? database.rows("PRAGMA journal_mode").first?.first, mode == "wal" else { return }
        // A first read opens the WAL and maps its index, which the snapshot reads from then on.
        _ = try? database.rows("SELECT 1 FROM sqlite_schema LIMIT 1")
        guard let snapshot = HeldSnapshot(handle: database.handle, anchor: self) else { return }
        database.heldSnapshot = snapshot
        lock.withLock { snapshots.append(.passUnretained(snapshot)) }
    }

    /// How many worker snapshots the anchor knows (for tests).
    public var snapshotCount: Int {
        lock.withLock { snapshots.count }
    }

    /// Takes a retiring snapshot off the list: the anchor must not touch it afterwards.
    func forget(_ snapshot: HeldSnapshot) {
        let retiring = Unmanaged.passUnretained(snapshot).toOpaque()
        lock.withLock { snapshots.removeAll { $0.toOpaque() == retiring } }
    }

    /// Whether the worker connections may keep their snapshots now.
    var snapshotsMayHold: Bool { mayHoldSnapshots.load(ordering: .sequentiallyConsistent) }

    /// With `lock` held. Ending the idle workers' snapshots comes after the flag: a worker busy
    /// now sees the flag when its request ends (`HeldSnapshot.endRequest`).
    private func setSnapshotsMayHold(_ value: Bool) {
        mayHoldSnapshots.store(value, ordering: .sequentiallyConsistent)
        if !value { endIdleSnapshots() }
    }

    /// With `lock` held.
    private func endIdleSnapshots() {
        for entry in snapshots { entry.takeUnretainedValue().endIfIdle() }
    }

    /// Starts a thread that calls `tick` every `tickInterval` until `close`.
    public func startTicking() {
        lock.withLock {
            guard ticker == nil, !closed else { return }
            ticker = POSIXThread.start { [self] in tickUntilClosed() }
        }
    }

    /// Releases the lock, stops the ticker and closes the connection (when the server stops).
    public func close() {
        let thread: pthread_t? = lock.withLock {
            guard !closed else { return nil }
            closed = true
            release()
            setSnapshotsMayHold(false)
            lock.signal()
            return ticker
        }
        if let thread { pthread_join(thread, nil) }
        lock.withLock { database = nil }
    }

    private func tickUntilClosed() {
        while true {
            let deadline = POSIXThread.deadline(after: tickInterval)
            let stop: Bool = lock.withLock {
                if !closed { _ = lock.wait(until: deadline) }
                return closed
            }
            if stop { return }
            tick()
        }
    }

    /// A read transaction that stays open: BEGIN alone takes no lock, the first read does.
    private func hold() throws(SQLiteError) {
        guard !holding, let database else { return }
        try database.cachedStatement("BEGIN DEFERRED").run()
        do {
            try database.cachedStatement("SELECT 1 FROM sqlite_schema LIMIT 1").run()
        } catch {
            try? database.cachedStatement("ROLLBACK").run()
            throw error
        }
        holding = true
    }

    private func release() {
        guard holding, let database else { return }
        try? database.cachedStatement("COMMIT").run()
        holding = false
    }

    /// A commit whose only page is the database header, unchanged: it gives the WAL a commit
    /// that records the database's size (see the type's comment).
    private func commitNothing() throws {
        guard let database else { return }
        try database.transaction {
            guard case .integer(let version)? = try database.rows("PRAGMA user_version").first?.first else { return }
            try database.execute("PRAGMA user_version = \(version)")
        }
    }

    /// Changes when a connection other than this one commits (SQLite's `PRAGMA data_version`).
    private func dataVersion() throws(SQLiteError) -> Int64 {
        guard let database else { return lastDataVersion }
        guard case .integer(let version)? = try database.cachedStatement("PRAGMA data_version").rows().first?.first else { return 0 }
        return version
    }
}
