import EDM
import ODataURI

/// The collections one entity expands, read while its response is written rather than into
/// records first: `Person(7)?$expand=PersonCar,PersonCar/Car` writes Person 7 from its row, and
/// then each PersonCar, with its Car joined, from the row of one statement. For one source
/// entity this is still one statement per expanded collection; it saves a record, its values
/// and its expansion list for every entity, and the bookkeeping that matches many parents.
///
/// It serves a single entity whose expansions are collections, each expanding at most
/// single-valued navigations that can be joined (`canStream`). A statement failing while the
/// response is written is kept in `error` and thrown by the reader afterwards.
public final class ExpansionStream {
    private let reader: EntityReader
    private let nodes: [ExpandNode]
    /// The first failure of a lent collection's statement; later collections are then skipped.
    var error: Error?

    init(reader: EntityReader, nodes: [ExpandNode]) {
        self.reader = reader
        self.nodes = nodes
    }

    /// Whether a single entity's `$expand` can be read this way.
    public static func canStream(_ nodes: [ExpandNode]) -> Bool {
        !nodes.isEmpty && nodes.allSatisfy { $0.navigation.isCollection && JoinedExpansions.canJoin($0.children) }
    }

    /// The entities of `navigation` related to `source`, to be lent when written; nil when
    /// this stream does not expand it.
    func entities(along navigation: NavigationProperty, from source: EntityRow) -> LentEntities? {
        guard let node = nodes.first(where: { $0.navigation === navigation }) else { return nil }
        let link = ExpansionLink(navigation)
        let key = link.sourceIndexes.map { source.value(at: $0) }
        return LentEntities(stream: self, link: link, joining: node.children, key: key)
    }

    /// Reads the collection and lends each entity to `body`, unless an earlier one failed.
    fileprivate func lend(_ entities: LentEntities, _ body: (EntityRow) -> Void) {
        guard error == nil else { return }
        // A null in the source's key links to nothing.
        guard !entities.key.contains(where: { if case .null = $0 { return true } else { return false } }) else { return }
        do {
            let (statement, joined, rowWidth) = try reader.expansionStatement(entities.link, single: true, joining: entities.joining)
            try statement.bind(entities.key)
            defer { statement.reset() }
            let target = entities.link.navigation.target
            var buffer = RowBuffer(width: rowWidth)
            while try statement.step() {
                body(EntityRow(type: target, columns: buffer.read(statement), joined: joined))
            }
        } catch {
            self.error = error
        }
    }
}

/// One expanded collection of an `ExpansionStream`, lent entity by entity to whoever writes it.
public final class LentEntities {
    fileprivate unowned let stream: ExpansionStream
    fileprivate let link: ExpansionLink
    fileprivate let joining: [ExpandNode]
    fileprivate let key: [SQLValue]

    fileprivate init(stream: ExpansionStream, link: ExpansionLink, joining: [ExpandNode], key: [SQLValue]) {
        self.stream = stream
        self.link = link
        self.joining = joining
        self.key = key
    }

    /// Lends each entity of the collection to `body`, in key order, each valid only during its call.
    public func forEach(_ body: (EntityRow) -> Void) {
        stream.lend(self, body)
    }
}
