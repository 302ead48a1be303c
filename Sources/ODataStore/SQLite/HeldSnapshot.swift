import CSQLite

/// A worker connection's read transaction, kept open from one read request to the next while
/// nothing writes, instead of one begun and ended by every statement.
///
/// Beginning and ending a read transaction takes and drops SQLite's locks on the database file
/// and on the WAL's shared memory. Those live in structures SQLite shares among all connections
/// of a process to the same file, each under its own mutex, so the worker threads wrote the
/// same cache lines on every request. The C floor, holding its transaction this way, went from
/// 91k-97k to 104k-113k `Person(n)` requests/s here ("Before and after", nineteenth session).
///
/// A held snapshot must still see every commit that finished before a request began. So
/// `beginRequest` compares the WAL-index header, which every commit of any connection or
/// process rewrites, with the copy taken before the snapshot was, and starts a new snapshot when
/// they differ. A held snapshot also keeps its frames in the WAL, as the anchor's lock does
/// (`ReadLockAnchor`): snapshots are held only while the anchor holds. When a write of this
/// process begins or another process writes, the anchor ends the snapshots of idle workers, and
/// a busy worker ends its own when its request is over.
///
/// Only GET and HEAD requests run in a held snapshot. Any other request (a write, a `$batch`)
/// ends it first and reads as before, each statement at the newest commit, so that a read after
/// a write in the same `$batch` sees that write.
public final class HeldSnapshot: @unchecked Sendable {
    private let handle: OpaquePointer
    private let anchor: ReadLockAnchor
    /// The WAL-index header in this connection's map of the `-shm` file.
    private let header: UnsafePointer<UInt64>
    /// The header as it was just before the held snapshot was taken.
    private let seenHeader = UnsafeMutablePointer<UInt64>.allocate(capacity: CSQLITE_WAL_INDEX_HEADER_WORDS)
    private let begin: OpaquePointer
    private let commit: OpaquePointer
    private let rollback: OpaquePointer
    /// Held by the worker for each request, and by whoever ends an idle worker's snapshot: the
    /// connection is used by one thread at a time.
    private let lock = ConditionLock()
    /// Guarded by `lock`.
    private var holding = false
    /// Set, under `lock`, when the connection closes: nothing may use it after that.
    private var retired = false

    /// Nil when the connection's WAL index is not a shared map (another journal mode, or a VFS
    /// without shared memory): then its reads work as without it.
    init?(handle: OpaquePointer, anchor: ReadLockAnchor) {
        guard let header = csqlite_wal_index_header(handle) else { return nil }
        func prepare(_ sql: String) -> OpaquePointer? {
            var statement: OpaquePointer?
            guard sqlite3_prepare_v3(handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil) == SQLITE_OK else { return nil }
            return statement
        }
        guard let begin = prepare("BEGIN DEFERRED"), let commit = prepare("COMMIT"), let rollback = prepare("ROLLBACK") else {
            return nil
        }
        self.handle = handle
        self.anchor = anchor
        // Shared memory that other connections write: read only through C's volatile loads.
        self.header = header
        self.begin = begin
        self.commit = commit
        self.rollback = rollback
    }

    deinit {
        // Already gone from the anchor's list when retired, as it always is first (`Database`
        // retires its snapshot before it closes); forgetting twice is harmless.
        anchor.forget(self)
        seenHeader.deallocate()
        sqlite3_finalize(begin)
        sqlite3_finalize(commit)
        sqlite3_finalize(rollback)
    }

    /// Before a request on the worker's thread: a read (`reads`) gets a snapshot that has seen
    /// every commit so far, kept from the last request when nothing committed since; any other
    /// request gets none. `endRequest` must follow.
    public func beginRequest(reads: Bool) {
        lock.lock()
        if holding && (sqlite3_get_autocommit(handle) != 0) {
            // SQLite rolled it back by itself (after an I/O error, say).
            holding = false
        }
        let mayHold = reads && anchor.snapshotsMayHold
        if holding && !(mayHold && csqlite_wal_index_header_unchanged(header, seenHeader) != 0) {
            end()
        }
        if mayHold && !holding && sqlite3_get_autocommit(handle) != 0 {
            // The copy first: a commit between it and the snapshot only makes the next request
            // start a snapshot it did not need.
            csqlite_wal_index_header_copy(header, seenHeader)
            // BEGIN takes no lock; the request's first read takes the snapshot.
            sqlite3_step(begin)
            sqlite3_reset(begin)
            holding = sqlite3_get_autocommit(handle) == 0
        }
    }

    /// After the request. A write that began meanwhile could not end this snapshot (the worker
    /// was busy), so the worker ends it now.
    public func endRequest() {
        lock.unlock()
        if !anchor.snapshotsMayHold { endIfIdle() }
    }

    /// Ends the snapshot unless its worker is in a request, which will end it itself (another
    /// thread may call this).
    func endIfIdle() {
        guard lock.tryLock() else { return }
        if !retired { end() }
        lock.unlock()
    }

    /// Whether a snapshot is held now (for tests).
    public var isHolding: Bool {
        lock.withLock { holding }
    }

    /// When the connection closes: waits for the request or the end in progress, and stops
    /// everything else from touching the connection.
    func retire() {
        // Off the anchor's list first, under the anchor's lock alone: the anchor holds that
        // lock while it ends idle snapshots, and only tries this one's.
        anchor.forget(self)
        lock.withLock {
            end()
            retired = true
        }
    }

    /// With `lock` held.
    private func end() {
        guard holding else { return }
        holding = false
        sqlite3_step(commit)
        sqlite3_reset(commit)
        if sqlite3_get_autocommit(handle) == 0 {
            // A statement still in progress kept COMMIT from ending it; a read loses nothing.
            sqlite3_step(rollback)
            sqlite3_reset(rollback)
        }
    }
}
