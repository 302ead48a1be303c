import EDM

// PLACEHOLDER — owned by the query-language work (issue 3), which replaces this file.
// The rest of the gateway relies only on these names:
//   BoundExpression (a typed $filter / $orderby expression), MemberPath, OrderByItem,
//   ExpressionParser.parseFilter / parseOrderBy, ExpressionLimits.

/// A property reached from the current entity, possibly through single-valued navigations.
public struct MemberPath: Sendable {
    public let navigations: [NavigationProperty]
    public let property: Property

    public init(navigations: [NavigationProperty], property: Property) {
        self.navigations = navigations
        self.property = property
    }
}

public indirect enum BoundExpression: Sendable {
    case literal(EDMValue, PrimitiveType?)
    case member(MemberPath)
    case equal(BoundExpression, BoundExpression)
    case and(BoundExpression, BoundExpression)
}

public struct OrderByItem: Sendable {
    public let expression: BoundExpression
    public let descending: Bool

    public init(expression: BoundExpression, descending: Bool) {
        self.expression = expression
        self.descending = descending
    }
}

public struct ExpressionLimits: Sendable {
    public var maxNodes: Int = 100

    public init(maxNodes: Int = 100) { self.maxNodes = maxNodes }
}

public enum ExpressionParser {
    public static func parseFilter(_ text: String, for type: EntityType, limits: ExpressionLimits) throws(URIError) -> BoundExpression {
        throw URIError(.notImplemented, "$filter is not implemented yet")
    }

    public static func parseOrderBy(_ text: String, for type: EntityType, limits: ExpressionLimits) throws(URIError) -> [OrderByItem] {
        throw URIError(.notImplemented, "$orderby is not implemented yet")
    }
}
