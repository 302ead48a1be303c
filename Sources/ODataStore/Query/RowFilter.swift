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

extension EntityReader {
    /// Shadows each filtered set's table, on this reader's connection alone, by a temporary
    /// view of the same name holding only the rows its filter admits. Both engines resolve a
    /// temporary object before the database's own, so every statement this reader builds (page,
    /// key lookup, each `$expand` level, counts, joins of navigation paths and of `$filter`
    /// through navigation) reads the view without knowing of it; the filter is translated by the
    /// `$filter` translator, its values written in as literals since a view takes no parameters.
    /// A filter's own navigation joins name the other tables plainly, so they reach the other
    /// sets as this reader sees them (`AccessPolicy` refuses filters that would go round in a
    /// circle).
    public func restrictRows(to filters: [RowFilter]) throws {
        for filter in filters {
            let type = filter.entitySet.entityType
            var context = SQLBuildContext(dialect: dialect)
            context.inlinesValues = true
            let condition = ExpressionTranslator.condition(for: filter.condition, in: &context)
            let table = try connection.persistentTable(type.tableName)
            var sql = "CREATE TEMPORARY VIEW " + dialect.quote(type.tableName) + " AS SELECT " + context.rootAlias + ".* FROM "
                + table + " AS " + context.rootAlias
            for join in context.joins { sql += " " + join }
            sql += " WHERE " + condition
            try connection.executeForSession(sql)
        }
    }
}

extension EntityStore {
    /// A reader (`openReader`) that sees only the rows `filters` admit.
    public func openReader(restrictedTo filters: [RowFilter]) throws -> any EntityReading {
        let reader = try openReader()
        guard !filters.isEmpty else { return reader }
        guard let sqlReader = reader as? EntityReader else { throw RowFilterUnsupported() }
        try sqlReader.restrictRows(to: filters)
        return sqlReader
    }
}

/// A store whose readers are not SQL readers cannot apply row filters; refusing beats serving
/// rows the rules hide.
public struct RowFilterUnsupported: Error, CustomStringConvertible {
    public var description: String { "this store cannot apply row filters" }
}
