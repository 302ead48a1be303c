/// An association between two entity types, with the end that holds the foreign key.
public final class Association: @unchecked Sendable {
    public let name: String
    public let qualifiedName: String
    public let principalRole: String
    public let dependentRole: String
    /// Unowned: the model owns its types (see `EntityType.entitySet`).
    public unowned let principal: EntityType
    public unowned let dependent: EntityType
    public let principalMultiplicity: String
    public let dependentMultiplicity: String
    public let foreignKey: ForeignKey
    /// The name of the association set that holds it in the container.
    public internal(set) var associationSetName: String

    init(name: String, qualifiedName: String, principalRole: String, dependentRole: String,
         principal: EntityType, dependent: EntityType, principalMultiplicity: String,
         dependentMultiplicity: String, foreignKey: ForeignKey, associationSetName: String) {
        self.name = name
        self.qualifiedName = qualifiedName
        self.principalRole = principalRole
        self.dependentRole = dependentRole
        self.principal = principal
        self.dependent = dependent
        self.principalMultiplicity = principalMultiplicity
        self.dependentMultiplicity = dependentMultiplicity
        self.foreignKey = foreignKey
        self.associationSetName = associationSetName
    }

    /// True when the foreign-key columns are hidden rather than properties of the dependent.
    public var hasHiddenForeignKey: Bool {
        foreignKey.columnIndexes.allSatisfy { $0 >= dependent.properties.count }
    }
}
