import EDM

/// The entity in a statement's current row, read in place: a response is written from it
/// without building an `EntityRecord` for each row. Valid only inside the call that lends it.
/// The row may also hold the entities it expands (`JoinedExpansions`), each an `EntityRow`
/// over its own columns.
public struct EntityRow: EntityColumns {
    public let type: EntityType
    /// The whole row, read once (`SQLStatement.read(into:)`). A page's loop lends one row value
    /// for every row, over a buffer each read refills, rather than building one per row, which
    /// retained its references each time.
    let columns: LentRow
    /// Where this entity's stored columns begin in the row.
    let offset: Int
    let joined: JoinedExpansions?
    /// The collections this entity expands, read when the response gets to them (`ExpansionStream`).
    let streamed: (any StreamedExpansions)?

    init(type: EntityType, columns: LentRow, offset: Int = 0, joined: JoinedExpansions? = nil,
         streamed: (any StreamedExpansions)? = nil) {
        self.type = type
        self.columns = columns
        self.offset = offset
        self.joined = joined
        self.streamed = streamed
    }

    public func withColumn(_ index: Int, _ body: (StoredColumn) -> Void) {
        body(columns[offset + index])
    }

    public var tagDigest: UInt64 { EntityTag.digest(of: self) }

    /// The related entity of a joined navigation: none when the join found no row, which its
    /// key, never null in a stored row, tells.
    public func expansion(of navigation: NavigationProperty) -> RelatedEntities<EntityRow>? {
        if let streamed, let lent = streamed.entities(along: navigation, from: self) { return .lent(lent) }
        guard let join = joined?.join(for: navigation) else { return nil }
        let target = navigation.target
        let found = target.keyProperties.allSatisfy { key in
            if case .null = columns[join.offset + key.columnIndex] { return false }
            return true
        }
        return .single(found ? EntityRow(type: target, columns: columns, offset: join.offset, joined: join.nested) : nil)
    }

    /// This entity and those joined to it that the row found: what a response writes of it.
    public var entityCount: Int {
        guard let joins = joined?.joins, !joins.isEmpty else { return 1 }
        var count = 1
        for join in joins {
            guard case .single(let related?)? = expansion(of: join.navigation) else { continue }
            count += related.entityCount
        }
        return count
    }

    /// The stored value of the column at `index`, owned.
    func value(at index: Int) -> SQLValue { columns[offset + index].value }

    /// An owned copy of this entity's columns, for what must outlive the row.
    var record: EntityRecord {
        EntityRecord(type: type, values: (offset..<offset + type.columnCount).map { columns[$0].value })
    }

    /// `record`, with an owned copy of each entity joined to it attached as its expansion.
    var recordWithJoinedExpansions: EntityRecord {
        let record = self.record
        for join in joined?.joins ?? [] {
            guard case .single(let related)? = expansion(of: join.navigation) else { continue }
            record.setExpansion(.single(related?.recordWithJoinedExpansions), of: join.navigation)
        }
        return record
    }
}
