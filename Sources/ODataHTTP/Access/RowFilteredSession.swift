import EDM
import ODataStore
import ODataURI

/// A role's unit of writes under its row filters. The store's write session serves every
/// role, so its statements cannot read the role's derived tables (`EntityReader.restrictRows`);
/// instead each check is a count of the row with the filter ANDed in, by the same `$filter`
/// translator, inside the write's transaction: a row outside a filter is not found (404 for
/// update, delete, links and navigation), and a write that leaves a row outside one (insert,
/// update, link, unlink, deep insert, binding) throws 403, which rolls the whole unit back.
final class RowFilteredSession: EntityWriting {
    private let base: any EntityWriting
    private let filters: [String: RowFilter]
    private let roleName: String

    init(_ base: any EntityWriting, filters: [RowFilter], roleName: String) {
        self.base = base
        self.filters = Dictionary(filters.map { ($0.entitySet.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.roleName = roleName
    }

    private func filter(of type: EntityType) -> RowFilter? {
        type.entitySet.flatMap { filters[$0.name] }
    }

    /// Whether the stored entity of `type` with these keys meets the type's filter.
    private func admits(_ type: EntityType, key: [EDMValue]) throws -> Bool {
        guard let filter = filter(of: type), let set = type.entitySet else { return true }
        var query = EntityQuery(path: ResourcePath(segments: [.entitySet(set, key: key)]))
        query.filter = filter.condition
        return try base.count(query, applyTopSkip: false, memo: nil) > 0
    }

    /// Whether every entity the path passes through, and the one it ends at when single, meets
    /// its filter; a collection at the end is narrowed by the query instead.
    private func admits(_ path: ResourcePath) throws -> Bool {
        for end in path.segments.indices where filter(of: path.segments[end].targetType) != nil {
            let prefix = ResourcePath(segments: Array(path.segments[...end]))
            guard prefix.isSingleEntity, let filter = filter(of: prefix.targetType) else { continue }
            var query = EntityQuery(path: prefix)
            query.filter = filter.condition
            if try base.count(query, applyTopSkip: false, memo: nil) == 0 { return false }
        }
        return true
    }

    private func narrowed(_ query: EntityQuery) -> EntityQuery {
        guard let filter = filter(of: query.path.targetType) else { return query }
        var query = query
        query.filter = query.filter.map { .and($0, filter.condition) } ?? filter.condition
        return query
    }

    private func requireAdmitted(_ record: EntityRecord) throws {
        guard try admits(record.type, key: record.keyValues) else {
            throw AccessError.forbidden("The role '\(roleName)' may not write a \(record.type.name) outside its row filter.")
        }
    }

    func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T { try base.readScope(shape, body) }

    func withSingle(_ path: ResourcePath, streaming nodes: [ExpandNode], memo: QueryMemo?, budget: EntityBudget,
                    _ body: (EntityRow) throws -> Void) throws -> Bool {
        guard try admits(path) else { return false }
        return try base.withSingle(path, streaming: nodes, memo: nil, budget: budget, body)
    }

    func single(_ path: ResourcePath) throws -> EntityRecord? {
        guard try admits(path) else { return nil }
        return try base.single(path)
    }

    func entity(at path: ResourcePath) throws -> EntityCursor {
        guard try admits(path) else { return .empty(of: path.targetType) }
        return try base.entity(at: path)
    }

    func forEachRow(_ query: EntityQuery, memo: QueryMemo?, _ body: (EntityRow) throws -> Void) throws -> [EDMValue]? {
        guard try admits(query.path) else { return nil }
        return try base.forEachRow(narrowed(query), memo: nil, body)
    }

    func page(_ query: EntityQuery, memo: QueryMemo?) throws -> EntityPage {
        guard try admits(query.path) else { return EntityPage(entities: .empty(of: query.path.targetType), nextSkipToken: nil) }
        return try base.page(narrowed(query), memo: nil)
    }

    func count(_ query: EntityQuery, applyTopSkip: Bool, memo: QueryMemo?) throws -> Int {
        guard try admits(query.path) else { return 0 }
        return try base.count(narrowed(query), applyTopSkip: applyTopSkip, memo: nil)
    }

    /// Expansions inside a write read what the write itself made or linked, each row of which
    /// was checked as it was written.
    func expand(_ entities: EntityCursor, _ nodes: [ExpandNode], memo: QueryMemo?, budget: inout EntityBudget) throws {
        try base.expand(entities, nodes, memo: nil, budget: &budget)
    }

    func row(_ type: EntityType, key: [SQLValue]) throws -> EntityRecord? {
        guard let record = try base.row(type, key: key) else { return nil }
        return try admits(type, key: record.keyValues) ? record : nil
    }

    /// Locked as it is now, which another writer may have moved out of the filter meanwhile.
    func lockedForWrite(_ record: EntityRecord) throws -> EntityRecord? {
        guard let current = try base.lockedForWrite(record) else { return nil }
        return try admits(current.type, key: current.keyValues) ? current : nil
    }

    /// A lock reveals nothing of the row, inside the filter or not.
    func lockForWrite(_ type: EntityType, key: [SQLValue]) throws { try base.lockForWrite(type, key: key) }

    func insert(_ type: EntityType, columns: [SQLValue?]) throws -> EntityRecord {
        let record = try base.insert(type, columns: columns)
        try requireAdmitted(record)
        return record
    }

    func update(_ record: EntityRecord, changes: [Int: SQLValue]) throws -> EntityRecord {
        let updated = try base.update(record, changes: changes)
        try requireAdmitted(updated)
        return updated
    }

    func delete(_ record: EntityRecord) throws {
        try checkFilteredDependents(of: record)
        try base.delete(record)
    }

    /// Dependents in a filtered set decide a delete without telling how many of them the filter
    /// hides: a delete they block is refused (409) without counting them, and one that would
    /// cascade to a dependent outside the filter is 403. Deeper cascades are the schema's own.
    private func checkFilteredDependents(of record: EntityRecord) throws {
        guard let set = record.type.entitySet else { return }
        for navigation in record.type.navigationProperties {
            let association = navigation.association
            guard association.principal === record.type, navigation.target === association.dependent,
                  let filter = filter(of: navigation.target) else { continue }
            var dependents = EntityQuery(path: ResourcePath(segments: [.entitySet(set, key: record.keyValues), .navigation(navigation, key: nil)]))
            let all = try base.count(dependents, applyTopSkip: false, memo: nil)
            guard all > 0 else { continue }
            let dependentName = navigation.target.entitySet?.name ?? navigation.target.name
            guard association.foreignKey.cascadesOnDelete else {
                throw WriteError.conflict("\(EntityWriter.describe(record)) cannot be deleted: \(dependentName) entities refer to it through the relationship \(association.name). Delete them or link them elsewhere first.")
            }
            dependents.filter = filter.condition
            if try base.count(dependents, applyTopSkip: false, memo: nil) < all {
                throw AccessError.forbidden("The role '\(roleName)' may not delete \(EntityWriter.describe(record)): it would delete \(dependentName) entities outside its row filter.")
            }
        }
    }

    func link(_ source: EntityRecord, _ navigation: NavigationProperty, to target: EntityRecord) throws {
        try base.link(source, navigation, to: target)
        try requireAdmitted(source)
        try requireAdmitted(target)
    }

    func unlink(_ source: EntityRecord, _ navigation: NavigationProperty, from target: EntityRecord?) throws {
        try base.unlink(source, navigation, from: target)
        try requireAdmitted(source)
        if let target { try requireAdmitted(target) }
    }

    func associations(dependent type: EntityType) -> [Association] { base.associations(dependent: type) }
}

extension ODataService {
    /// The unit of writes as the role may use it: under its row filters, if it has any.
    func restricted(_ session: any EntityWriting) -> any EntityWriting {
        guard let rules, !rules.rowFilters.isEmpty else { return session }
        return RowFilteredSession(session, filters: rules.rowFilters, roleName: rules.roleName)
    }
}
