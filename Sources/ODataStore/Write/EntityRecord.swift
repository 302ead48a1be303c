import EDM

/// One entity as a write holds it: every stored column, owned, to be checked against a
/// request's conditions, changed, linked or deleted after the statement that read it has
/// moved on. Reads never build one; a write's response is written from it as an `EntityRow`
/// (`withRow`), as every response is.
public final class EntityRecord: EntityColumns {
    public let type: EntityType
    /// Column values in the type's stored-column order (properties, then hidden foreign keys).
    public let values: [SQLValue]

    public init(type: EntityType, values: [SQLValue]) {
        self.type = type
        self.values = values
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

    /// Lends this entity as an `EntityRow`, the one form responses are written from.
    public func withRow<Result>(_ body: (EntityRow) throws -> Result) rethrows -> Result {
        let rows = OwnedRows(width: type.columnCount)
        rows.append(values)
        return try withExtendedLifetime(rows) { try body(EntityRow(type: type, columns: rows[0])) }
    }
}
