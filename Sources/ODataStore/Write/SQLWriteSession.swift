import EDM
import ODataURI

/// One atomic unit of writes on an engine's connection, inside the transaction (or savepoint)
/// the store opened for it: its reads see its own changes.
public final class SQLWriteSession: EntityWriting {
    private let reader: EntityReader
    private let writer: EntityWriter

    public init(connection: any SQLConnection, model: EntityModel) {
        reader = EntityReader(connection: connection)
        writer = EntityWriter(connection: connection, model: model)
    }

    public func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T { try body() }

    public func withSingle(_ path: ResourcePath, streaming nodes: [ExpandNode], memo: QueryMemo?, budget: EntityBudget,
                    _ body: (EntityRow) throws -> Void) throws -> Bool {
        try reader.withSingle(path, streaming: nodes, memo: memo, budget: budget, body)
    }

    public func single(_ path: ResourcePath) throws -> EntityRecord? { try reader.single(path) }

    public func entity(at path: ResourcePath) throws -> EntityCursor { try reader.entity(at: path) }

    public func forEachRow(_ query: EntityQuery, memo: QueryMemo?, _ body: (EntityRow) throws -> Void) throws -> [EDMValue]? {
        try reader.forEachRow(query, memo: memo, body)
    }

    public func page(_ query: EntityQuery, memo: QueryMemo?) throws -> EntityPage { try reader.page(query, memo: memo) }

    public func count(_ query: EntityQuery, applyTopSkip: Bool, memo: QueryMemo?) throws -> Int {
        try reader.count(query, applyTopSkip: applyTopSkip, memo: memo)
    }

    public func expand(_ entities: EntityCursor, _ nodes: [ExpandNode], memo: QueryMemo?, budget: inout EntityBudget) throws {
        try reader.expand(entities, nodes, memo: memo, budget: &budget)
    }

    public func row(_ type: EntityType, key: [SQLValue]) throws -> EntityRecord? { try writer.row(type, key: key) }
    public func lockedForWrite(_ record: EntityRecord) throws -> EntityRecord? {
        // Where writes run one at a time, the record read in this unit cannot change before it ends.
        guard writer.dialect.rowLockClause != nil else { return record }
        return try writer.row(record.type, key: record.keyColumnValues, locked: true)
    }
    public func lockForWrite(_ type: EntityType, key: [SQLValue]) throws {
        guard writer.dialect.rowLockClause != nil else { return }
        _ = try writer.row(type, key: key, locked: true)
    }
    public func insert(_ type: EntityType, columns: [SQLValue?]) throws -> EntityRecord { try writer.insert(type, columns: columns) }
    public func update(_ record: EntityRecord, changes: [Int: SQLValue]) throws -> EntityRecord { try writer.update(record, changes: changes) }
    public func delete(_ record: EntityRecord) throws { try writer.delete(record) }
    public func link(_ source: EntityRecord, _ navigation: NavigationProperty, to target: EntityRecord) throws {
        try writer.link(source, navigation, to: target)
    }
    public func unlink(_ source: EntityRecord, _ navigation: NavigationProperty, from target: EntityRecord?) throws {
        try writer.unlink(source, navigation, from: target)
    }
    public func associations(dependent type: EntityType) -> [Association] { writer.associations(dependent: type) }
}
