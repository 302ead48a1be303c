import EDM
import ODataURI

/// `$expand` of single-valued navigation properties, read in the same statement as the
/// entities they start from, by LEFT JOIN: where each related entity's columns sit in the
/// row, nested like the `$expand` tree. A single-valued join adds no rows, so each entity
/// and what it expands are written from one row, without a record or a second statement.
public final class JoinedExpansions {
    struct Join {
        let navigation: NavigationProperty
        /// The position of the related entity's first stored column in the row.
        let offset: Int
        let nested: JoinedExpansions
    }

    private(set) var joins: [Join] = []

    /// Whether joins can read the whole tree: every navigation single-valued and followed from
    /// the foreign key to the target's primary key, which matches one row at most. (A 0..1 end
    /// whose target holds the key is not unique in SQLite, so a join could repeat the source.)
    public static func canJoin(_ nodes: [ExpandNode]) -> Bool {
        nodes.allSatisfy { node in
            !node.navigation.isCollection && !node.navigation.targetHoldsForeignKey && canJoin(node.children)
        }
    }

    /// Adds the LEFT JOINs of `nodes` (reached from the root by `path`) to `context`, and
    /// their columns to `select`, which holds `columnCount` columns so far.
    static func plan(_ nodes: [ExpandNode], from path: [NavigationProperty] = [], context: inout SQLBuildContext,
                     select: inout String, columnCount: inout Int) -> JoinedExpansions {
        let planned = JoinedExpansions()
        for node in nodes {
            let navigationPath = path + [node.navigation]
            let alias = context.alias(for: navigationPath)
            let target = node.navigation.target
            select += ", " + SQL.columns(of: target, alias: alias)
            let offset = columnCount
            columnCount += target.columnCount
            let nested = plan(node.children, from: navigationPath, context: &context, select: &select, columnCount: &columnCount)
            planned.joins.append(Join(navigation: node.navigation, offset: offset, nested: nested))
        }
        return planned
    }

    func join(for navigation: NavigationProperty) -> Join? {
        joins.first { $0.navigation === navigation }
    }
}
