import EDM

/// One entity as every response is written from it: a statement's current row read in place,
/// or a row of an `EntityCursor` kept from one. Valid only inside the call that lends it.
/// The row may also hold the entities it expands (`JoinedExpansions`), each an `EntityRow`
/// over its own columns; its other children come from `expansions`.
public struct EntityRow: EntityColumns {
    public let type: EntityType
    /// The whole row, read once (`SQLStatement.read(into:)`). A page's loop lends one row value
    /// for every row, over a buffer each read refills, rather than building one per row, which
    /// retained its references each time.
    @usableFromInline let columns: LentRow
    /// Where this entity's stored columns begin in the row.
    @usableFromInline let offset: Int
    let joined: JoinedExpansions?
    /// The children not joined into the row: collections read when the response gets to them
    /// (`ExpansionStream`), or a level read by key list (`LevelExpansions`).
    let expansions: (any ExpansionSource)?

    init(type: EntityType, columns: LentRow, offset: Int = 0, joined: JoinedExpansions? = nil,
         expansions: (any ExpansionSource)? = nil) {
        self.type = type
        self.columns = columns
        self.offset = offset
        self.joined = joined
        self.expansions = expansions
    }

    @inlinable
    public func withColumn(_ index: Int, _ body: (StoredColumn) -> Void) {
        body(columns[offset + index])
    }

    public var tagDigest: UInt64 { EntityTag.digest(of: self) }

    /// Whether `$expand` gives this entity anything: when not, `children(for:)` is nil for
    /// every navigation, and a writer need not name one to find that out.
    public var isExpanded: Bool { joined != nil || expansions != nil }

    /// What `$expand` gives this entity along `navigation`; nil when it is not expanded. A
    /// joined navigation's entity is none when the join found no row, which its key, never
    /// null in a stored row, tells.
    public func children(for navigation: NavigationProperty) -> RelatedEntities? {
        children(for: navigation.id)
    }

    /// `children(for:)` of the navigation property `id` identifies.
    public func children(for id: NavigationProperty.ID) -> RelatedEntities? {
        if let expansions, let related = expansions.entities(along: id, from: self) { return related }
        return joined?.related(along: id, in: columns)
    }

    /// This entity and those joined to it that the row found: what a response writes of it.
    /// Counted for every row against the response's entity budget, so without building a
    /// row for each join.
    public var entityCount: Int { joined?.entityCount(in: columns) ?? 1 }

    /// The stored value of the column at `index`, owned.
    func value(at index: Int) -> SQLValue { columns[offset + index].value }

    /// An owned copy of this entity's columns, for a write that must keep it.
    var record: EntityRecord {
        EntityRecord(type: type, values: (offset..<offset + type.columnCount).map { columns[$0].value })
    }
}
