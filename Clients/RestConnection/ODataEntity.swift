/// An entity type with a home in an entity set: what the writes on `RestConnection` need to know
/// to address it. `dealer-codegen` makes its generated types conform.
public protocol ODataEntity: Codable, Sendable {
    /// The entity set that holds entities of this type, e.g. `Person`.
    static var entitySetName: String { get }
    /// The navigation properties by key path, with their names in the service
    /// (`[\Person.personCar: "PersonCar"]`), for `RestConnection.load(_:of:)`.
    static var navigationProperties: [PartialKeyPath<Self>: String] { get }
    /// The `__metadata` the server sent (its ETag included), nil for an entity made locally.
    /// Typed updates set its ETag to the one the server answers with.
    var metadata: ODataMetadata? { get set }
    /// The entity's URI relative to the service root, from its key: `Person(1)`.
    var uri: String { get }
}

extension ODataEntity {
    public static var navigationProperties: [PartialKeyPath<Self>: String] { [:] }
}
