import EDM
import Foundation
import ODataStore

/// The PostgreSQL implementation of `EntityStore`: one database that any number of gateway
/// processes serve at once. Each worker thread reads through its own connection
/// (`openReader`), every read request in one `REPEATABLE READ READ ONLY` snapshot (a read of
/// one statement needs no transaction for that, and runs without one); each write
/// (a request, or a `$batch` change set) is one `READ COMMITTED` transaction on a connection
/// taken from this process's pool, which locks each entity it checks before changing it (so
/// that an If-Match check and its update are one atomic step), is run again when it deadlocks
/// with another gateway's, and is acknowledged
/// once its COMMIT has returned: with `synchronous_commit` on (the server's default) that is
/// once the change is durable.
public final class PostgresStore: EntityStore, @unchecked Sendable {
    /// The libpq connection URI.
    public let url: String
    /// Connections for writes, each used by one write at a time; as many as writes run at once.
    private var idleWriters: [PostgresConnection] = []
    private let lock = NSLock()
    private var statistics = WriteStatistics()
    private var isClosed = false

    /// Connects once, so that a wrong URI or an unreachable server is reported at start.
    public init(url: String) throws {
        self.url = url
        let first = try PostgresConnection(url: url)
        idleWriters.append(first)
    }

    /// How the read scopes of every reader connection ran (`PostgresConnection.readScope`).
    public let readScopeTally = ReadScopeTally()

    public func openReader() throws -> any EntityReading {
        let connection = try PostgresConnection(url: url)
        connection.readScopeTally = readScopeTally
        return EntityReader(connection: connection)
    }

    public func write<T>(model: EntityModel, _ body: (any EntityWriting) throws -> T) throws -> (T, PendingCommit) {
        let connection = try takeWriter()
        defer { giveBack(connection) }
        let result = try connection.transaction(.write) {
            try body(SQLWriteSession(connection: connection, model: model))
        }
        lock.withLock {
            statistics.commits += 1
            statistics.writesCommitted += 1
        }
        return (result, .decided())
    }

    public var writeStatistics: WriteStatistics { lock.withLock { statistics } }

    public func close() {
        lock.withLock {
            isClosed = true
            idleWriters.removeAll()
        }
    }

    private func takeWriter() throws -> PostgresConnection {
        if let connection = lock.withLock({ idleWriters.popLast() }) { return connection }
        return try PostgresConnection(url: url)
    }

    private func giveBack(_ connection: PostgresConnection) {
        // A connection left in a transaction (it broke mid-way) is not reused.
        guard !connection.isInTransaction else { return }
        lock.withLock {
            if !isClosed { idleWriters.append(connection) }
        }
    }
}
