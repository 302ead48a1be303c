import EDM
import ODataURI

/// `$expand` of single-valued navigation properties, read in the same statement as the
/// entities they start from, by LEFT JOIN: where each related entity's columns sit in the
/// row, nested like the `$expand` tree. A single-valued join adds no rows, so each entity
/// and what it expands are written from one row, without a copy or a second statement.
public final class JoinedExpansions {
    struct Join {
        let navigation: NavigationProperty
        /// `navigation.id`, which a row's expansions are looked up by.
        let navigationID: NavigationProperty.ID
        /// The navigation's target, held here: the property holds it unowned, and reading it
        /// through that costs an atomic check of its count besides the reference.
        let target: EntityType
        /// The position of the related entity's first stored column in the row.
        let offset: Int
        let nested: JoinedExpansions
        /// Where the related entity's key columns sit in the row.
        let keyColumns: [Int]

        init(navigation: NavigationProperty, offset: Int, nested: JoinedExpansions) {
            self.navigation = navigation
            navigationID = navigation.id
            target = navigation.target
            self.offset = offset
            self.nested = nested
            keyColumns = target.keyProperties.map { offset + $0.columnIndex }
        }

        /// Whether the join found its entity: its key, never null in a stored row, is null
        /// when the LEFT JOIN matched nothing.
        func found(in columns: LentRow) -> Bool {
            for column in keyColumns {
                if case .null = columns[column] { return false }
            }
            return true
        }
    }

    /// A `let`: read for every navigation property of every row written, where a `var` of a
    /// class costs a runtime exclusivity check each time.
    let joins: [Join]

    private init(joins: [Join]) { self.joins = joins }

    /// Whether joins can read the whole tree: every navigation single-valued and followed from
    /// the foreign key to the target's primary key, which matches one row at most. (A 0..1 end
    /// whose target holds the key is not unique in SQLite, so a join could repeat the source.)
    public static func canJoin(_ nodes: [ExpandNode]) -> Bool {
        nodes.allSatisfy { node in
            !node.navigation.isCollection && !node.navigation.targetHoldsForeignKey && canJoin(node.children)
        }
    }

    /// Where the columns of `nodes` and of what they expand sit in a row that already holds
    /// `columnCount` columns: each entity's columns, then those of what it expands, depth first.
    static func layout(_ nodes: [ExpandNode], columnCount: inout Int) -> JoinedExpansions {
        var joins: [Join] = []
        joins.reserveCapacity(nodes.count)
        for node in nodes {
            let offset = columnCount
            columnCount += node.navigation.target.columnCount
            let nested = layout(node.children, columnCount: &columnCount)
            joins.append(Join(navigation: node.navigation, offset: offset, nested: nested))
        }
        return JoinedExpansions(joins: joins)
    }

    /// Adds the LEFT JOINs of `nodes` (reached from the root by `path`) to `context`, and
    /// their columns to `select`, which holds `columnCount` columns so far.
    static func plan(_ nodes: [ExpandNode], context: inout SQLBuildContext,
                     select: inout String, columnCount: inout Int) -> JoinedExpansions {
        let planned = layout(nodes, columnCount: &columnCount)
        planned.addSQL(context: &context, select: &select)
        return planned
    }

    /// The joins and the selected columns, in the order `layout` placed them.
    func addSQL(from path: [NavigationProperty] = [], context: inout SQLBuildContext, select: inout String) {
        for join in joins {
            let navigationPath = path + [join.navigation]
            let alias = context.alias(for: navigationPath)
            select += ", " + context.dialect.columns(of: join.navigation.target, alias: alias)
            join.nested.addSQL(from: navigationPath, context: &context, select: &select)
        }
    }

    /// The joined tree as text (`Car,Owner(Address)`): with the navigation it starts from, it
    /// identifies a statement.
    var signature: String {
        joins.map { join in
            join.nested.joins.isEmpty ? join.navigation.name : join.navigation.name + "(" + join.nested.signature + ")"
        }.joined(separator: ",")
    }

    // The two reads below go through `joins` by index: a copy of a `Join` takes a reference to
    // the model's navigation property, whose count every worker changes (see
    // `VerboseJSONSerializer.entity`).

    /// One entity and those of these joins (and theirs) that `columns` found.
    func entityCount(in columns: LentRow) -> Int {
        var count = 1
        for index in joins.indices where joins[index].found(in: columns) {
            count += joins[index].nested.entityCount(in: columns)
        }
        return count
    }

    /// The entity the join along the navigation `id` identifies found in `columns`, none when
    /// the LEFT JOIN matched nothing; nil when that navigation is not joined here.
    func related(along id: NavigationProperty.ID, in columns: LentRow) -> RelatedEntities? {
        for index in joins.indices where joins[index].navigationID == id {
            guard joins[index].found(in: columns) else { return .single(nil) }
            return .single(EntityRow(type: joins[index].target, columns: columns, offset: joins[index].offset,
                                     joined: joins[index].nested))
        }
        return nil
    }
}
