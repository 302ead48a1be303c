import EDM
import ODataURI

/// A condition every row of one entity set must meet to exist for a reader: an access rule's
/// row filter, a `$filter` expression bound to the set's type.
public struct RowFilter: Sendable, Equatable {
    public let entitySet: EntitySet
    public let condition: BoundExpression
    /// The expression as written; two filters are the same when their sets and texts are.
    public let text: String

    public init(entitySet: EntitySet, condition: BoundExpression, text: String) {
        self.entitySet = entitySet
        self.condition = condition
        self.text = text
    }

    public static func == (left: RowFilter, right: RowFilter) -> Bool {
        left.entitySet.name == right.entitySet.name && left.text == right.text
    }
}

extension RowFilter {
    /// The rows the filter admits as a derived table, `(SELECT f0.* FROM "Car" AS f0 WHERE ...)`,
    /// translated by the `$filter` translator with its values written in as literals: the text
    /// is the same in every statement it goes into, so each role's statements are prepared and
    /// kept like any other, and nothing is left on the connection between requests (a pooler
    /// may hand the next transaction to another session). The filter's own navigation joins
    /// name the other tables plainly (`AccessPolicy` refuses a filter that goes to a set
    /// filtered itself).
    public func derivedTable(_ dialect: any SQLDialect) -> String {
        var context = SQLBuildContext(dialect: dialect, rootAlias: "f0", aliasPrefix: "fj")
        context.inlinesValues = true
        let condition = ExpressionTranslator.condition(for: condition, in: &context)
        var sql = "(SELECT f0.* FROM " + dialect.quote(entitySet.entityType.tableName) + " AS f0"
        for join in context.joins { sql += " " + join }
        return sql + " WHERE " + condition + ")"
    }
}

extension EntityReader {
    /// Makes every statement this reader builds read each filtered set as the rows its filter
    /// admits (`RowFilter.derivedTable`), in place of its table: the page, the key lookup,
    /// each `$expand` level, counts, the subqueries of navigation paths and the joins of
    /// `$filter` and `$orderby` through navigation. Called once, as the reader opens, before it
    /// builds any statement.
    public func restrictRows(to filters: [RowFilter]) {
        guard !filters.isEmpty else { return }
        precondition(tableSources.isEmpty && hasBuiltNoStatement, "row filters are set before the reader builds a statement")
        tableSources = Dictionary(filters.map { ($0.entitySet.entityType.tableName, $0.derivedTable(dialect)) },
                                  uniquingKeysWith: { first, _ in first })
    }
}

extension EntityStore {
    /// A reader (`openReader`) that sees only the rows `filters` admit.
    public func openReader(restrictedTo filters: [RowFilter]) throws -> any EntityReading {
        let reader = try openReader()
        guard !filters.isEmpty else { return reader }
        guard let sqlReader = reader as? EntityReader else { throw RowFilterUnsupported() }
        sqlReader.restrictRows(to: filters)
        return sqlReader
    }
}

/// A store whose readers are not SQL readers cannot apply row filters; refusing beats serving
/// rows the rules hide.
public struct RowFilterUnsupported: Error, CustomStringConvertible {
    public var description: String { "this store cannot apply row filters" }
}
