/// Bounds on the size of a `$filter` or `$orderby` expression, so that a request cannot make
/// the parser, the binder or SQLite work without limit. Going past one is a 400 naming it.
public struct ExpressionLimits: Sendable, Equatable {
    /// The most nodes (literals, members, operators, function calls) one option may hold.
    public var maxNodes: Int
    /// The deepest nesting of parentheses, unary operators and function arguments.
    public var maxDepth: Int

    public init(maxNodes: Int = 100, maxDepth: Int = 32) {
        self.maxNodes = maxNodes
        self.maxDepth = maxDepth
    }
}
