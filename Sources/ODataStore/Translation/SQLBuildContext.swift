import EDM

/// What a SQL statement accumulates while it is built: bound parameters and the LEFT JOINs
/// that single-valued navigation paths need, in the engine's `dialect`. Every value reaches the
/// database as a parameter.
public struct SQLBuildContext {
    public let dialect: any SQLDialect
    /// The alias of the statement's root table.
    public let rootAlias: String
    public private(set) var parameters: [SQLValue] = []
    /// The parameters that hold a key of the resource path, so that SQL kept for one request
    /// can be bound with the keys of another with the same target shape (`PathKeyParameter`).
    public private(set) var pathKeyParameters: [PathKeyParameter] = []
    /// LEFT JOIN clauses, in the order they were first needed.
    public private(set) var joins: [String] = []
    private var aliasesByPath: [String: String] = [:]
    private let aliasPrefix: String
    /// Values are written into the text as literals rather than bound (a row filter's derived
    /// table, whose text is the same for every statement it goes into).
    public var inlinesValues = false
    /// What each restricted table is read as, by table name (`EntityReader.restrictRows`);
    /// empty for a reader without row filters, whose SQL names the tables themselves.
    public var tableSources: [String: String] = [:]

    public init(dialect: any SQLDialect, rootAlias: String = "t0", aliasPrefix: String = "j") {
        self.dialect = dialect
        self.rootAlias = rootAlias
        self.aliasPrefix = aliasPrefix
    }

    /// What the statement reads `type`'s rows from: its table, or the derived table of the
    /// rows a row filter admits.
    public func source(_ type: EntityType) -> String {
        if !tableSources.isEmpty, let restricted = tableSources[type.tableName] { return restricted }
        return dialect.quote(type.tableName)
    }

    /// Whether `type`'s rows are read through a row filter, so that no condition may stand in
    /// for reading them.
    public func isRestricted(_ type: EntityType) -> Bool {
        !tableSources.isEmpty && tableSources[type.tableName] != nil
    }

    /// Adds a parameter and returns its placeholder.
    public mutating func bind(_ value: SQLValue) -> String {
        if inlinesValues { return dialect.literal(value) }
        let placeholder = dialect.placeholder(parameters.count)
        parameters.append(value)
        return placeholder
    }

    /// Adds a parameter holding a value of `type` (a literal of `$filter`), and returns the
    /// text that stands for it (`SQLDialect.parameter(_:of:)`).
    public mutating func bind(_ value: SQLValue, of type: PrimitiveType?) -> String {
        dialect.parameter(bind(value), of: type)
    }

    /// Adds a parameter for component `component` of the key of the path's segment `segment`,
    /// and returns its placeholder.
    public mutating func bindPathKey(_ value: SQLValue, segment: Int, component: Int) -> String {
        pathKeyParameters.append(PathKeyParameter(parameter: parameters.count, segment: segment, component: component))
        return bind(value)
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
            joins.append("LEFT JOIN " + source(navigation.target) + " AS " + next + " ON "
                         + dialect.joinCondition(navigation, sourceAlias: alias, targetAlias: next))
            alias = next
        }
        return alias
    }
}

/// A statement parameter that holds a key value of the request's resource path. Requests whose
/// targets differ only in their keys (`Person(7)/PersonCar`, `Person(8)/PersonCar`) share
/// one parse and its SQL (`ParseCache`); each binds its own keys at these positions.
public struct PathKeyParameter: Sendable, Equatable {
    /// The parameter's position among the statement's parameters, from 0.
    public let parameter: Int
    /// The path segment whose key it is, and the key property's position in that key.
    public let segment: Int
    public let component: Int
}
