import EDM

/// One entity as read from its table: every stored column, and the related entities that
/// `$expand` attached to it. A reference type because one related entity may be shared by
/// several parents (many PersonCars, one Car) and is expanded once.
public final class EntityRecord: EntityColumns {
    public typealias Expansion = RelatedEntities<EntityRecord>

    public let type: EntityType
    /// Column values in the type's stored-column order (properties, then hidden foreign keys).
    public let values: [SQLValue]
    /// Expanded navigation properties by their index in the type; nil when nothing is expanded.
    public private(set) var expansions: [Expansion?]?

    public init(type: EntityType, values: [SQLValue]) {
        self.type = type
        self.values = values
    }

    public func expansion(of navigation: NavigationProperty) -> Expansion? {
        expansions?[navigation.index]
    }

    public func setExpansion(_ expansion: Expansion, of navigation: NavigationProperty) {
        if expansions == nil { expansions = Array(repeating: nil, count: type.navigationProperties.count) }
        expansions![navigation.index] = expansion
    }

    public func value(of property: Property) -> EDMValue {
        EDMValue(values[property.columnIndex], as: property.type)
    }

    public var tagDigest: UInt64 { EntityTag.digest(of: self) }

    public func withColumn(_ index: Int, _ body: (StoredColumn) -> Void) {
        StoredColumn.lend(values[index], body)
    }

    public var keyValues: [EDMValue] { type.keyProperties.map { value(of: $0) } }

    /// The stored values of the key columns, for matching related rows.
    var keyColumnValues: [SQLValue] { type.keyProperties.map { values[$0.columnIndex] } }

}
