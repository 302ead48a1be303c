import EDM
import ODataURI

/// The collections one entity expands, read while its response is written rather than into
/// an `EntityCursor` first: `Person(7)?$expand=PersonCar,PersonCar/Car` writes Person 7 from its row, and
/// then each PersonCar, with its Car joined, from the row of one statement. For one source
/// entity this is still one statement per expanded collection; it saves a copy of every row,
/// and the bookkeeping that matches many parents.
///
/// It serves a single entity whose expansions are collections, each expanding at most
/// single-valued navigations that can be joined (`canStream`). A statement failing while the
/// response is written, or a collection past the response's `EntityBudget`, is thrown to the
/// writer there: the response written so far is then dropped.
public final class ExpansionStream: ExpansionSource {
    private let reader: EntityReader
    private let nodes: [ExpandNode]
    /// Where each expansion's plan is kept for the next request with the same target, or one
    /// that differs only in its keys (the plan reads the key from the entity's row).
    private let memo: QueryMemo?
    /// What the response may still hold; its entity is counted by the caller.
    private var budget: EntityBudget

    init(reader: EntityReader, nodes: [ExpandNode], memo: QueryMemo?, budget: EntityBudget) {
        self.reader = reader
        self.nodes = nodes
        self.memo = memo
        self.budget = budget
    }

    /// Whether a single entity's `$expand` can be read as it is written: each node a
    /// collection whose own expansions can be joined to it, or a single-valued navigation
    /// joined to the entity's row (`JoinedExpansions.canJoin`).
    public static func canStream(_ nodes: [ExpandNode]) -> Bool {
        !nodes.isEmpty && nodes.allSatisfy { node in
            node.navigation.isCollection ? JoinedExpansions.canJoin(node.children) : JoinedExpansions.canJoin([node])
        }
    }

    /// The entities related to `source` along the navigation property `id` identifies, to be
    /// lent when written; nil when this stream does not expand it.
    public func entities(along id: NavigationProperty.ID, from source: EntityRow) -> RelatedEntities? {
        guard let index = nodes.firstIndex(where: { $0.navigation.id == id }) else { return nil }
        let navigation = nodes[index].navigation
        // The collection's step of the target's read plan, by its place among the expansions.
        let step = memo?.step(index, along: navigation, joining: nodes[index].children)
            ?? ExpansionStep(navigation: navigation, joining: nodes[index].children)
        let key = step.link.sourceIndexes.map { source.value(at: $0) }
        return .lent(LentEntities(stream: self, plan: step, key: key))
    }

    /// Reads the collection and lends each entity to `body`.
    fileprivate func lend(_ entities: LentEntities, _ body: (EntityRow) throws -> Void) throws {
        // A null in the source's key links to nothing.
        guard !entities.key.contains(where: { if case .null = $0 { return true } else { return false } }) else { return }
        let plan = entities.plan
        let statement = try plan.statement(reader, single: true)
        try statement.bind(entities.key)
        defer { statement.reset() }
        let target = plan.navigation.target
        var buffer = RowBuffer(width: plan.rowWidth)
        // One row value over the buffer each read refills, as in `EntityReader.forEachRow`.
        let row = EntityRow(type: target, columns: buffer.storage, joined: plan.joined)
        var count = 0
        while try statement.step() {
            statement.read(into: &buffer)
            count += 1
            // Checked before the entity is written: what is past a limit is never written.
            try budget.checkCollection(count, along: plan.navigation)
            try budget.spend(row.entityCount)
            try body(row)
        }
    }
}

/// One expanded collection of an `ExpansionStream`, lent entity by entity to whoever writes it.
final class LentEntities: LentCollection {
    fileprivate unowned let stream: ExpansionStream
    fileprivate let plan: ExpansionStep
    fileprivate let key: [SQLValue]

    fileprivate init(stream: ExpansionStream, plan: ExpansionStep, key: [SQLValue]) {
        self.stream = stream
        self.plan = plan
        self.key = key
    }

    /// Lends each entity of the collection to `body`, in key order, each valid only during its call.
    func forEach(_ body: (EntityRow) throws -> Void) throws {
        try stream.lend(self, body)
    }
}
