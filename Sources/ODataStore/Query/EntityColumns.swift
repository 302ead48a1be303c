import EDM

/// The entities `$expand` attached to one entity along one navigation property.
public enum RelatedEntities<Entity> {
    case single(Entity?)
    case collection([Entity])
    /// A collection lent one entity at a time while the response is written.
    case lent(any LentCollection)
}

/// An expanded collection read while the response is written: each entity lent in place,
/// valid only during its call. A failure to read, or a limit passed, is thrown to the writer.
public protocol LentCollection: AnyObject {
    func forEach(_ body: (EntityRow) throws -> Void) throws
}

/// What reads the collections one entity expands when its response gets to them
/// (`ExpansionStream`, one keyed statement per collection).
public protocol StreamedExpansions: AnyObject {
    /// The entities of `navigation` related to `source`; nil when it is not expanded this way.
    func entities(along navigation: NavigationProperty, from source: EntityRow) -> (any LentCollection)?
}

/// The stored columns of one entity, wherever they are read from: an `EntityRecord`, or an
/// `EntityRow` that a response is written from while the statement sits on it.
public protocol EntityColumns {
    /// How its expanded related entities are held: records for records, rows for rows.
    associatedtype Related: EntityColumns
    var type: EntityType { get }
    /// Lends the column at `index` (in the type's stored-column order) to `body`. Not generic:
    /// a generic closure crossing modules is called through type metadata, for every column.
    func withColumn(_ index: Int, _ body: (StoredColumn) -> Void)
    /// The related entities `$expand` attached; nil when the navigation was not expanded.
    func expansion(of navigation: NavigationProperty) -> RelatedEntities<Related>?
    /// The 64 bits its ETag is made of (see `EntityTag`).
    var tagDigest: UInt64 { get }
}

extension EntityColumns {
    /// The value of `property`, typed.
    public func value(of property: Property) -> EDMValue {
        var value = EDMValue.null
        withColumn(property.columnIndex) { value = EDMValue($0.value, as: property.type) }
        return value
    }

    /// The key, as typed values.
    public var keyValues: [EDMValue] {
        type.keyProperties.map { key in
            var value = EDMValue.null
            withColumn(key.columnIndex) { value = EDMValue($0.value, as: key.type) }
            return value
        }
    }
}
