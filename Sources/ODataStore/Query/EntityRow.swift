import EDM

/// The entity in a statement's current row, read in place: a response is written from it
/// without building an `EntityRecord` for each row. Valid only inside the call that lends it.
public struct EntityRow: EntityColumns {
    public let type: EntityType
    /// The type's stored columns, read once from the row (`Statement.withColumns`).
    let columns: UnsafeBufferPointer<StoredColumn>

    public func withColumn(_ index: Int, _ body: (StoredColumn) -> Void) {
        body(columns[index])
    }

    public var tagDigest: UInt64 { EntityTag.digest(of: self) }

    /// Rows are read for responses without `$expand`.
    public func expansion(of navigation: NavigationProperty) -> EntityRecord.Expansion? { nil }

    /// An owned copy, for what must outlive the row.
    var record: EntityRecord { EntityRecord(type: type, values: columns.map(\.value)) }
}
