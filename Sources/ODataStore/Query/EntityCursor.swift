import EDM

/// Entities read whole before they are written: a page, or one entity, whose `$expand` goes
/// below an expanded collection, read one statement per level by key list
/// (`EntityReader.page`, `entity(at:)`, `expand`). Each level's rows are kept in the layout of
/// the statement's row (`OwnedRows`) and lent as `EntityRow`s, each with its children
/// (`EntityRow.children(for:)`) as the streamed read lends them: the serializers write both
/// the same way, and never see which read it was.
public final class EntityCursor: LentCollection {
    let type: EntityType
    let rows: OwnedRows
    /// The single-valued expansions joined into each row.
    let joined: JoinedExpansions?
    /// What these entities expand by statements of their own; nil when nothing does.
    var expansions: LevelExpansions?

    init(type: EntityType, width: Int, joined: JoinedExpansions? = nil) {
        self.type = type
        self.rows = OwnedRows(width: width)
        self.joined = joined
    }

    /// No entities: what a read finds where a path's entity is not there for the reader.
    public static func empty(of type: EntityType) -> EntityCursor {
        EntityCursor(type: type, width: type.columnCount)
    }

    /// The number of entities at this level (not counting what they expand).
    public var count: Int { rows.count }

    /// Lends each entity to `body`, in order, with what it expands.
    public func forEach(_ body: (EntityRow) throws -> Void) throws {
        for index in 0..<rows.count { try body(self[index]) }
    }

    subscript(index: Int) -> EntityRow {
        EntityRow(type: type, columns: rows[index], joined: joined, expansions: expansions)
    }
}

/// The children of one key-list level: for each expanded navigation, the level below, and
/// which of its entities each source entity links to.
final class LevelExpansions: ExpansionSource {
    struct Child {
        let navigation: NavigationProperty
        /// The source's columns its link key is made of (`ExpansionLink.sourceIndexes`).
        let sourceIndexes: [Int]
        let entities: EntityCursor
        /// The entities below each link key, by their place in `entities`, in key order.
        let byLink: [LinkKey: [Int]]
    }

    var children: [Child] = []

    func entities(along id: NavigationProperty.ID, from source: EntityRow) -> RelatedEntities? {
        guard let child = children.first(where: { $0.navigation.id == id }) else { return nil }
        let linked = LinkKey(source, child.sourceIndexes).flatMap { child.byLink[$0] } ?? []
        guard child.navigation.isCollection else { return .single(linked.first.map { child.entities[$0] }) }
        return .lent(LinkedEntities(entities: child.entities, indexes: linked))
    }
}

/// The entities of a level below one source entity.
final class LinkedEntities: LentCollection {
    private let entities: EntityCursor
    private let indexes: [Int]

    init(entities: EntityCursor, indexes: [Int]) {
        self.entities = entities
        self.indexes = indexes
    }

    func forEach(_ body: (EntityRow) throws -> Void) throws {
        for index in indexes { try body(entities[index]) }
    }
}
