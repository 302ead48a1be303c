/// The whole service model: what `$metadata` describes and every layer resolves names against.
public final class EntityModel: @unchecked Sendable {
    public let namespace: String
    public let containerName: String
    public let entityTypes: [EntityType]
    public let entitySets: [EntitySet]
    public let associations: [Association]
    /// The service operations, in declaration order.
    public let functionImports: [FunctionImport]

    private let setsByName: [String: EntitySet]
    private let typesByQualifiedName: [String: EntityType]

    init(namespace: String, containerName: String, entityTypes: [EntityType], entitySets: [EntitySet], associations: [Association],
         functionImports: [FunctionImport] = []) {
        self.functionImports = functionImports
        self.namespace = namespace
        self.containerName = containerName
        self.entityTypes = entityTypes
        self.entitySets = entitySets
        self.associations = associations
        var sets: [String: EntitySet] = [:]
        for set in entitySets { sets[set.name] = set }
        setsByName = sets
        var types: [String: EntityType] = [:]
        for type in entityTypes { types[type.qualifiedName] = type }
        typesByQualifiedName = types
    }

    public func entitySet(named name: String) -> EntitySet? { setsByName[name] }

    public func functionImport(named name: String) -> FunctionImport? {
        // A linear search: schemas declare a handful, and only names that are no set reach it.
        functionImports.first { $0.name == name }
    }

    public func entityType(qualifiedName: String) -> EntityType? { typesByQualifiedName[qualifiedName] }

    /// Entity types ordered so that every principal comes before its dependents: the order in
    /// which tables are created and seed rows are inserted.
    public var typesInDependencyOrder: [EntityType] {
        var ordered: [EntityType] = []
        var placed = Set<ObjectIdentifier>()
        var remaining = entityTypes
        while !remaining.isEmpty {
            let before = remaining.count
            remaining.removeAll { type in
                let principals = associations.filter { $0.dependent === type && $0.principal !== type }.map(\.principal)
                guard principals.allSatisfy({ placed.contains(ObjectIdentifier($0)) }) else { return false }
                ordered.append(type)
                placed.insert(ObjectIdentifier(type))
                return true
            }
            if remaining.count == before {
                // A cycle of required relationships; keep declaration order for the rest.
                ordered += remaining
                break
            }
        }
        return ordered
    }
}
