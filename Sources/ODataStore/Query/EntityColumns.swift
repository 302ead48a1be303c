import EDM

/// The children `$expand` gives one entity along one navigation property.
public enum RelatedEntities {
    /// A single-valued navigation's entity; nil when there is none.
    case single(EntityRow?)
    /// A collection, each entity lent in turn.
    case lent(any LentCollection)
}

/// An expanded collection, each entity lent in place and valid only during its call: read
/// while the response is written (`ExpansionStream`), or from rows read before it
/// (`EntityCursor`). A failure to read, or a limit passed, is thrown to the writer.
public protocol LentCollection: AnyObject {
    func forEach(_ body: (EntityRow) throws -> Void) throws
}

/// Where the children of entities come from when they are not joined into their row: a
/// statement per expanded collection run as the response reaches it (`ExpansionStream`), or
/// a level read by key list before the response (`LevelExpansions`).
public protocol ExpansionSource: AnyObject {
    /// The children of `source` along the navigation property `id` identifies; nil when it is
    /// not expanded this way.
    func entities(along id: NavigationProperty.ID, from source: EntityRow) -> RelatedEntities?
}

/// The stored columns of one entity: an `EntityRow`, which every response is written from,
/// or a write's `EntityRecord`.
public protocol EntityColumns {
    var type: EntityType { get }
    /// Lends the column at `index` (in the type's stored-column order) to `body`. Not generic:
    /// a generic closure crossing modules is called through type metadata, for every column.
    func withColumn(_ index: Int, _ body: (StoredColumn) -> Void)
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
