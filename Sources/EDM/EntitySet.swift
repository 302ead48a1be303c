/// An entity set: the addressable collection `/Set` of one entity type.
public final class EntitySet: @unchecked Sendable, CustomStringConvertible {
    public let name: String
    public let entityType: EntityType
    /// The most entities one response of this set carries before server-driven paging cuts it.
    public let pageSize: Int?

    init(name: String, entityType: EntityType, pageSize: Int?) {
        self.name = name
        self.entityType = entityType
        self.pageSize = pageSize
    }

    public var description: String { name }
}
