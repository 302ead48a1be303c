/// An entity type: key, properties, navigation properties and where its rows live.
/// Built once by `ModelLoader` and immutable afterwards, hence `@unchecked Sendable`.
public final class EntityType: @unchecked Sendable, CustomStringConvertible {
    public let name: String
    public let namespace: String
    public let qualifiedName: String
    public let tableName: String
    /// Declared properties, in declaration order; their columnIndex equals their position here.
    public let properties: [Property]
    public let keyProperties: [Property]
    public let concurrencyProperties: [Property]
    /// Foreign-key columns that are not properties, after the properties in column order.
    public let hiddenColumns: [HiddenColumn]
    /// Number of stored columns: properties, then hidden foreign-key columns. Read for every
    /// entity written (its ETag's digest), so stored: a `let` costs no exclusivity check.
    public let columnCount: Int
    // The `var`s of the model are set while `ModelLoader` links it and only read afterwards.
    public internal(set) var navigationProperties: [NavigationProperty] = []
    /// Its position in `EntityModel.entityTypes`: what is kept per type can sit in an array
    /// and be found without hashing. A `let`: another module's read of a `var` calls the runtime's
    /// exclusivity check.
    public let index: Int
    /// The one entity set whose entities are of this type. Unowned like every back-reference in
    /// the model: the `EntityModel` owns all its elements, and strong references both ways would
    /// keep a model alive forever.
    public internal(set) unowned var entitySet: EntitySet?

    private let propertiesByName: [String: Property]
    internal var navigationByName: [String: NavigationProperty] = [:]

    init(name: String, namespace: String, tableName: String, properties: [Property], hiddenColumns: [HiddenColumn], index: Int) {
        self.index = index
        self.name = name
        self.namespace = namespace
        self.qualifiedName = namespace + "." + name
        self.tableName = tableName
        self.properties = properties
        self.hiddenColumns = hiddenColumns
        columnCount = properties.count + hiddenColumns.count
        self.keyProperties = properties.filter(\.isKey)
        self.concurrencyProperties = properties.filter(\.isConcurrencyToken)
        var byName: [String: Property] = [:]
        for property in properties { byName[property.name] = property }
        self.propertiesByName = byName
    }

    public var description: String { qualifiedName }

    /// Column names in stored-column order.
    public var columnNames: [String] { properties.map(\.columnName) + hiddenColumns.map(\.name) }

    public func property(named name: String) -> Property? { propertiesByName[name] }

    public func navigationProperty(named name: String) -> NavigationProperty? { navigationByName[name] }
}
