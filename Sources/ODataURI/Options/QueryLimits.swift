/// Bounds on what one request may ask for, so that no request can make the gateway do
/// unbounded work. Exceeding one is a 400 whose message names the bound.
public struct QueryLimits: Sendable {
    public var maxURILength = 8192
    public var maxExpandDepth = 6
    public var maxExpandBreadth = 20
    public var maxTop = 10_000
    public var expression = ExpressionLimits()

    public init() {}
}
