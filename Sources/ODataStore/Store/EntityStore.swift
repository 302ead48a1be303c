import EDM
import ODataURI

/// Where the service's entities live: the interface the OData layers (URI, serialization, HTTP)
/// read and write through, and the one a storage engine implements. `SQLiteStore` (module
/// SQLiteStore) is the SQLite implementation; `Sources/ODataStore/README.md` lists what a
/// second engine provides.
///
/// The service's workers are plain threads. Each asks the store for its own `EntityReading`
/// (a connection of its own, with its prepared statements); every write of the process goes
/// through `write`, which the store may run on a connection of its own and group with others.
public protocol EntityStore: AnyObject, Sendable {
    /// A reader on a connection of its own; the caller keeps one per worker thread.
    func openReader() throws -> any EntityReading

    /// Runs `body` as one atomic unit of writes (a request, or a `$batch` change set): its
    /// changes are kept whole or, when it throws, not at all. The caller must wait for the
    /// returned commit before it acknowledges the write: only then is it durable. `model` is
    /// the service's model, whose types and associations `body` uses.
    func write<T>(model: EntityModel, _ body: (any EntityWriting) throws -> T) throws -> (T, PendingCommit)

    /// What the store has committed so far (for logs and tests).
    var writeStatistics: WriteStatistics { get }

    /// Commits what is pending and releases connections and threads; nothing is written after.
    func close()
}

/// What the store has committed so far: transactions, each holding one or more writes.
public struct WriteStatistics: Sendable, Equatable {
    public var commits = 0
    public var writesCommitted = 0

    public init(commits: Int = 0, writesCommitted: Int = 0) {
        self.commits = commits
        self.writesCommitted = writesCommitted
    }
}

/// The reads of one thread, each lending entities as `EntityRow`s: in place as a statement reads
/// them, or from an `EntityCursor` that keeps them while what they expand is read level by
/// level. SQL, statements and snapshots stay behind it.
///
/// - `$filter`, `$orderby`, `$top`, `$skip`, `$skiptoken` (keyset paging after the token's
///   order-by values and key) and the server page size are applied as `EntityQuery` says.
/// - `memo` is the store's own per-target cache (`QueryMemo`): plans and their SQL kept for
///   the next request with the same target, or one that differs only in its keys.
/// - `EntityBudget`: entities are counted as they are read; past a limit the read throws
///   `LimitExceeded` before reading on.
public protocol EntityReading: AnyObject {
    /// Runs `body`'s reads in one consistent snapshot of the database, released when it
    /// returns (`ReadScope` on SQLite); inside a write, its reads see the write's changes.
    /// `shape` says whether the scope runs at most one statement (`SQLConnection.readScope`):
    /// then `body` may be run twice, and must have no effect beyond its result.
    func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T

    /// Lends the first entity the path addresses to `body`, expanding `nodes` (collections
    /// whose own expansions can be joined; `ExpansionStream.canStream`) as the response
    /// reaches them; false when there is none.
    @discardableResult
    func withSingle(_ path: ResourcePath, streaming nodes: [ExpandNode], memo: QueryMemo?, budget: EntityBudget,
                    _ body: (EntityRow) throws -> Void) throws -> Bool

    /// The first entity the path addresses, or nil, owned: what a write holds.
    func single(_ path: ResourcePath) throws -> EntityRecord?

    /// The first entity the path addresses, if any, kept for `expand`.
    func entity(at path: ResourcePath) throws -> EntityCursor

    /// Lends each entity of the page to `body`, in order and in place, with the single-valued
    /// expansions `query.joinedExpand` read in the same statement; returns the skip token of
    /// the next page when the page size cut the result.
    func forEachRow(_ query: EntityQuery, memo: QueryMemo?, _ body: (EntityRow) throws -> Void) throws -> [EDMValue]?

    /// The page's entities kept for `expand`, with the skip token of the next page.
    func page(_ query: EntityQuery, memo: QueryMemo?) throws -> EntityPage

    /// The number of entities the query addresses, ignoring paging; `$top` and `$skip` apply
    /// when `applyTopSkip` is set (the `$count` segment).
    func count(_ query: EntityQuery, applyTopSkip: Bool, memo: QueryMemo?) throws -> Int

    /// Reads the entities `nodes` expand below `entities`, which then lends each entity with
    /// its children: one statement per level, whatever the number of entities, each level a
    /// step of the target's read plan kept in `memo`.
    func expand(_ entities: EntityCursor, _ nodes: [ExpandNode], memo: QueryMemo?, budget: inout EntityBudget) throws
}

/// The writes of one atomic unit (`EntityStore.write`), and the reads it makes meanwhile, which
/// see its own changes. Relationship rules are checked before writing, so that a client learns
/// which relationship a write breaks (`WriteError`), never a bare engine constraint code.
public protocol EntityWriting: EntityReading {
    /// The stored row of the entity with these key column values, or nil.
    func row(_ type: EntityType, key: [SQLValue]) throws -> EntityRecord?
    /// `record` as it is now, kept from other writers until this unit of writes ends, so that
    /// what is checked of it (If-Match) still holds when it is changed; nil when it is gone.
    func lockedForWrite(_ record: EntityRecord) throws -> EntityRecord?
    /// Keeps the entity of `type` with these key column values, if it exists, from other
    /// writers until this unit of writes ends; nothing where writes run one at a time. A unit
    /// that locks everything it will change this way first, in one order, cannot deadlock over
    /// those rows with another that does the same.
    func lockForWrite(_ type: EntityType, key: [SQLValue]) throws
    /// Inserts an entity (nil columns take their default; an identity key is assigned) and
    /// returns it as stored.
    func insert(_ type: EntityType, columns: [SQLValue?]) throws -> EntityRecord
    /// Sets columns of a stored row (never its key) and returns the row as it is now.
    @discardableResult
    func update(_ record: EntityRecord, changes: [Int: SQLValue]) throws -> EntityRecord
    /// Deletes an entity, and its dependents where the schema cascades; a conflict otherwise.
    func delete(_ record: EntityRecord) throws
    /// Relates `source` to `target` along `navigation` (sets the foreign key on whichever holds it).
    func link(_ source: EntityRecord, _ navigation: NavigationProperty, to target: EntityRecord) throws
    /// Removes the relationship (to `target`, or to whatever `source` is related to when nil).
    func unlink(_ source: EntityRecord, _ navigation: NavigationProperty, from target: EntityRecord?) throws
    /// The associations in which `type` holds the foreign key.
    func associations(dependent type: EntityType) -> [Association]
}

extension EntityReading {
    /// `page(_:memo:)` without a memo.
    public func page(_ query: EntityQuery) throws -> EntityPage { try page(query, memo: nil) }

    /// `count(_:applyTopSkip:memo:)` without a memo.
    public func count(_ query: EntityQuery, applyTopSkip: Bool) throws -> Int {
        try count(query, applyTopSkip: applyTopSkip, memo: nil)
    }
}
