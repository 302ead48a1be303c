/// A navigation property, resolved to the association that backs it and to the side that
/// holds the foreign key, which is all a query needs to follow it.
/// `Identifiable` by the object: a response's writer finds an entity's expansions by `id`, a
/// value, where passing the property itself took a reference to it for every entity.
public final class NavigationProperty: Identifiable, @unchecked Sendable {
    public let name: String
    public let relationship: String
    public let fromRole: String
    public let toRole: String
    /// Unowned: the model owns its types (see `EntityType.entitySet`). All `let`s:
    /// responses read them for every entity written, and another module's read of a `var` runs
    /// the runtime's exclusivity check each time.
    public unowned let source: EntityType
    public unowned let target: EntityType
    /// "1", "0..1" or "*" at the target end.
    public let targetMultiplicity: String
    public let association: Association
    /// Position among the source type's navigation properties.
    public let index: Int

    init(name: String, relationship: String, fromRole: String, toRole: String, source: EntityType, target: EntityType,
         targetMultiplicity: String, association: Association, index: Int) {
        self.name = name
        self.relationship = relationship
        self.fromRole = fromRole
        self.toRole = toRole
        self.source = source
        self.target = target
        self.targetMultiplicity = targetMultiplicity
        self.association = association
        self.index = index
    }

    /// True when the navigation yields a collection (the target end is "*").
    public var isCollection: Bool { targetMultiplicity == "*" }

    /// True when the target entity holds the foreign key (principal to dependent navigation).
    public var targetHoldsForeignKey: Bool { association.dependentRole == toRole }

    /// The foreign key that links the two ends.
    public var foreignKey: ForeignKey { association.foreignKey }

    /// The navigation property on the target that leads back, when the target declares one.
    public var partner: NavigationProperty? {
        target.navigationProperties.first { $0.relationship == relationship && $0.fromRole == toRole && $0.toRole == fromRole }
    }
}
