import EDM
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
        return EntityReader(database: database)
    }

    public func write<T>(model: EntityModel, _ body: (any EntityWriting) throws -> T) throws -> (T, PendingCommit) {
        try writeGate.write { database in try body(SQLiteWriteSession(database: database, model: model)) }
    }

    public var writeStatistics: WriteStatistics {
        let counts = writeGate.statistics
        return WriteStatistics(commits: counts.commits, writesCommitted: counts.writesCommitted)
    }

    public func close() { writeGate.close() }
}

extension EntityReader: EntityReading {
    public func readScope<T>(_ body: () throws -> T) throws -> T {
        try database.readScope.run(body)
    }
}

/// One write on the gate's connection, inside the savepoint the gate opened for it: its reads
/// see its own changes.
final class SQLiteWriteSession: EntityWriting {
    private let reader: EntityReader
    private let writer: EntityWriter

    init(database: Database, model: EntityModel) {
        reader = EntityReader(database: database)
        writer = EntityWriter(database: database, model: model)
    }

    func readScope<T>(_ body: () throws -> T) throws -> T { try body() }

    func withSingle(_ path: ResourcePath, streaming nodes: [ExpandNode], memo: QueryMemo?, budget: EntityBudget,
                    _ body: (EntityRow) throws -> Void) throws -> Bool {
        try reader.withSingle(path, streaming: nodes, memo: memo, budget: budget, body)
    }

    func single(_ path: ResourcePath) throws -> EntityRecord? { try reader.single(path) }

    func forEachRow(_ query: EntityQuery, memo: QueryMemo?, _ body: (EntityRow) throws -> Void) throws -> [EDMValue]? {
        try reader.forEachRow(query, memo: memo, body)
    }

    func page(_ query: EntityQuery, memo: QueryMemo?) throws -> EntityPage { try reader.page(query, memo: memo) }

    func count(_ query: EntityQuery, applyTopSkip: Bool, memo: QueryMemo?) throws -> Int {
        try reader.count(query, applyTopSkip: applyTopSkip, memo: memo)
    }

    func expand(_ records: [EntityRecord], _ nodes: [ExpandNode], memo: QueryMemo?, budget: inout EntityBudget) throws {
        try reader.expand(records, nodes, memo: memo, budget: &budget)
    }

    func row(_ type: EntityType, key: [SQLValue]) throws -> EntityRecord? { try writer.row(type, key: key) }
    func insert(_ type: EntityType, columns: [SQLValue?]) throws -> EntityRecord { try writer.insert(type, columns: columns) }
    func update(_ record: EntityRecord, changes: [Int: SQLValue]) throws -> EntityRecord { try writer.update(record, changes: changes) }
    func delete(_ record: EntityRecord) throws { try writer.delete(record) }
    func link(_ source: EntityRecord, _ navigation: NavigationProperty, to target: EntityRecord) throws {
        try writer.link(source, navigation, to: target)
    }
    func unlink(_ source: EntityRecord, _ navigation: NavigationProperty, from target: EntityRecord?) throws {
        try writer.unlink(source, navigation, from: target)
    }
    func associations(dependent type: EntityType) -> [Association] { writer.associations(dependent: type) }
}
