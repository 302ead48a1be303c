import EDM
import ODataStore
import ODataURI

/// The SQLite implementation of `EntityStore`: one database file in WAL mode. Each worker
/// thread reads through its own connection (`openReader`), every read request in one
/// `ReadScope`; every write of the process goes through one `WriteGate`, which gives writes one
/// connection and lets writes that arrive together share a commit.
public final class SQLiteStore: EntityStore, @unchecked Sendable {
    public let path: String
    /// How much of the file each reader maps into memory once it is larger than the page cache
    /// (`Database.mapFileIfLargerThanCache`); 0: none.
    private let memoryMapSize: Int
    private let writeGate: WriteGate

    public init(path: String, memoryMapSize: Int = 1 << 30) {
        self.path = path
        self.memoryMapSize = memoryMapSize
        self.writeGate = WriteGate(path: path)
    }

    deinit { writeGate.close() }

    /// A reader on a connection of its own, configured as the service's; the caller keeps one
    /// per thread (a connection is used by one thread at a time).
    public func openReader() throws -> any EntityReading {
        let database = try Database(path: path)
        try database.configureForService()
        try database.mapFileIfLargerThanCache(upTo: memoryMapSize)
        return EntityReader(connection: database)
    }

    public func write<T>(model: EntityModel, _ body: (any EntityWriting) throws -> T) throws -> (T, PendingCommit) {
        try writeGate.write { database in try body(SQLWriteSession(connection: database, model: model)) }
    }

    public var writeStatistics: WriteStatistics {
        let counts = writeGate.statistics
        return WriteStatistics(commits: counts.commits, writesCommitted: counts.writesCommitted)
    }

    public func close() { writeGate.close() }
}
