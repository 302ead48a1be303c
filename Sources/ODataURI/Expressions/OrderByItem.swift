/// One key of `$orderby`.
public struct OrderByItem: Sendable {
    public let expression: BoundExpression
    public let descending: Bool

    public init(expression: BoundExpression, descending: Bool) {
        self.expression = expression
        self.descending = descending
    }
}
