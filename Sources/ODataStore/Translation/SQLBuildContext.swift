import EDM

/// What a SQL statement accumulates while it is built: bound parameters and the LEFT JOINs
/// that single-valued navigation paths need. Every value reaches SQLite as a parameter.
public struct SQLBuildContext {
    /// The alias of the statement's root table.
    public let rootAlias: String
    public private(set) var parameters: [SQLValue] = []
    /// LEFT JOIN clauses, in the order they were first needed.
    public private(set) var joins: [String] = []
    private var aliasesByPath: [String: String] = [:]
    private let aliasPrefix: String

    public init(rootAlias: String = "t0", aliasPrefix: String = "j") {
        self.rootAlias = rootAlias
        self.aliasPrefix = aliasPrefix
    }

    /// Adds a parameter and returns its placeholder.
    public mutating func bind(_ value: SQLValue) -> String {
        parameters.append(value)
        return "?"
    }

    /// The alias of the table reached by following `path` from the root, adding the LEFT JOINs
    /// on the way. Each path is joined once, however often it is used.
    public mutating func alias(for path: [NavigationProperty]) -> String {
        var alias = rootAlias
        var key = ""
        for navigation in path {
            key += "/" + navigation.name
            if let existing = aliasesByPath[key] {
                alias = existing
                continue
            }
            let next = aliasPrefix + String(aliasesByPath.count + 1)
            aliasesByPath[key] = next
            joins.append("LEFT JOIN " + SQL.quote(navigation.target.tableName) + " AS " + next + " ON "
                         + SQL.joinCondition(navigation, sourceAlias: alias, targetAlias: next))
            alias = next
        }
        return alias
    }
}
