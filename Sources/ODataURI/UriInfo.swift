import EDM

/// A request URI resolved against the model: what it addresses and with which options.
/// The processor dispatches on `resource`; the serializers read `options`.
public struct UriInfo: Sendable {
    public enum Resource: Sendable {
        case serviceDocument
        case metadata
        case batch
        /// A collection of entities: `Set` or `Set(key)/CollectionNav`.
        case entityCollection(ResourcePath)
        /// One entity: `Set(key)`, `Set(key)/Nav(key)`, or a single-valued navigation.
        case entity(ResourcePath)
        /// `Set(key)/Prop`, or with `/$value` its raw value. Indirect: a `Property` is a struct of
        /// about 120 bytes, and inline it made every parse that large, whatever it addressed.
        indirect case property(ResourcePath, Property, rawValue: Bool)
        /// `Set/$count` or `Set(key)/Nav/$count`: the number of addressed entities.
        case count(ResourcePath)
        /// `Set(key)/$links/Nav` or `Set(key)/$links/Nav(key)`: the links from the source entity.
        case links(source: ResourcePath, navigation: NavigationProperty, targetKey: [EDMValue]?)
    }

    public let resource: Resource
    public let options: QueryOptions
    /// The service operation called, when the target names one: its entities are
    /// `resource`'s collection with the operation's filter in `options`; an aggregate is
    /// computed over that collection.
    public let serviceOperation: FunctionImport?

    public init(resource: Resource, options: QueryOptions, serviceOperation: FunctionImport? = nil) {
        self.resource = resource
        self.options = options
        self.serviceOperation = serviceOperation
    }
}
