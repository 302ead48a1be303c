import EDM
import HTTPCore
import ODataStore
import ODataURI

/// A change set's rows locked in one order before its operations run. Each operation locks the
/// entity it changes when it gets to it (`EntityWriting.lockedForWrite`), so two change sets
/// that change the same rows in different orders, on two gateways, could each hold a row the
/// other waits for: a deadlock, which the database breaks by failing one of them, retried a
/// few times and then answered 503. Locked first, in the order of their entity set's name and
/// then their key, the rows are taken in the same order by every change set, and a change set
/// waits for another instead. Where writes run one at a time, nothing is locked.
extension ODataService {
    /// Locks every existing entity the operations address by key (`Set(key)`, its properties
    /// and `$links`, and the parent a POST creates under), in the order of their entity set's
    /// name, then key. An operation whose URI cannot be resolved yet (a Content-ID reference to
    /// an entity this change set creates) or that fails to parse is left to fail or lock as it
    /// runs.
    func lockAddressedEntities(of operations: [BatchOperation], outer: HTTPRequest, worker: WorkerContext,
                               in session: any EntityWriting) throws {
        guard operations.count > 1 else { return }
        var addressed: [AddressedEntity] = []
        for operation in operations where operation.method != "GET" && !operation.uri.hasPrefix("$") {
            let request = httpRequest(for: operation, uri: operation.uri, outer: outer)
            guard let (context, method) = try? requestContext(for: request, worker: worker) else { continue }
            switch context.info.resource {
            case .entity(let path), .property(let path, _, _):
                AddressedEntity.add(method == "POST" ? path.parent : path, to: &addressed)
            case .entityCollection(let path):
                AddressedEntity.add(path.parent, to: &addressed)
            case .links(let source, let navigation, let targetKey):
                AddressedEntity.add(source, to: &addressed)
                if let targetKey {
                    addressed.append(AddressedEntity(type: navigation.target, key: targetKey.map(SQLValue.init)))
                }
            case .serviceDocument, .metadata, .batch, .count:
                continue
            }
        }
        guard addressed.count > 1 else { return }
        addressed.sort()
        var previous: AddressedEntity?
        for entity in addressed where entity != previous {
            try session.lockForWrite(entity.type, key: entity.key)
            previous = entity
        }
    }
}

/// An entity by its type and key column values, ordered by its entity set's name, then key:
/// any order serves, as long as every gateway takes the same one.
struct AddressedEntity: Comparable {
    let type: EntityType
    let key: [SQLValue]

    var setName: String { type.entitySet?.name ?? type.name }

    /// The entity `path` addresses when it is `Set(key)`; a longer path's entity is known only
    /// once it is read, and is locked when its operation runs.
    static func add(_ path: ResourcePath?, to entities: inout [AddressedEntity]) {
        guard let path, path.segments.count == 1, case .entitySet(let set, let key?) = path.segments[0] else { return }
        entities.append(AddressedEntity(type: set.entityType, key: key.map(SQLValue.init)))
    }

    static func == (a: AddressedEntity, b: AddressedEntity) -> Bool {
        a.type === b.type && a.key == b.key
    }

    static func < (a: AddressedEntity, b: AddressedEntity) -> Bool {
        if a.setName != b.setName { return a.setName < b.setName }
        for (x, y) in zip(a.key, b.key) where x != y { return precedes(x, y) }
        return a.key.count < b.key.count
    }

    /// A total order of stored values: by kind, then by value.
    private static func precedes(_ x: SQLValue, _ y: SQLValue) -> Bool {
        switch (x, y) {
        case (.integer(let a), .integer(let b)): return a < b
        case (.real(let a), .real(let b)): return a < b || (a.isNaN && !b.isNaN)
        case (.text(let a), .text(let b)): return a.utf8.lexicographicallyPrecedes(b.utf8)
        case (.blob(let a), .blob(let b)): return a.lexicographicallyPrecedes(b)
        default: return rank(x) < rank(y)
        }
    }

    private static func rank(_ value: SQLValue) -> Int {
        switch value {
        case .null: 0
        case .integer: 1
        case .real: 2
        case .text: 3
        case .blob: 4
        }
    }
}
