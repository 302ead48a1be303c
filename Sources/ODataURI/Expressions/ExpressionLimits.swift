/// Bounds on the size of a `$filter` or `$orderby` expression, so that a request cannot make
/// the parser, the binder or SQLite work without limit. Going past one is a 400 naming it.
public struct ExpressionLimits: Sendable, Equatable {
    /// The most nodes (literals, members, operators, function calls) one option may hold. The
    /// default lets through the `or` chain of an `in`-list of 250 values, pyodata's
    /// `filter(key__in=[...])` (four nodes a value).
    public var maxNodes: Int
    /// The deepest nesting of parentheses, unary operators, function arguments and chained
    /// operators other than `and` and `or`: it bounds the recursion of the parser, the binder
    /// and the SQL engine's own parser. Each level may become a few levels of SQL (a range check
    /// around an integer sum, say), and SQLite's parser takes about a hundred: the default
    /// keeps the worst expression within it.
    public var maxDepth: Int

    public init(maxNodes: Int = 1000, maxDepth: Int = 16) {
        self.maxNodes = maxNodes
        self.maxDepth = maxDepth
    }
}
