import EDM

/// A `$filter` or `$orderby` expression after every name was resolved against the model and
/// every operand was type-checked. Each node knows its EDM result type (`type`).
///
/// Semantics, shared by the SQL translation and the tests' reference evaluator:
/// - Null propagates through arithmetic and functions (except `concat`, which reads null as "").
/// - Comparisons are two-valued: `eq`/`ne` treat null as a value (`null eq null` is true),
///   `lt`/`le`/`gt`/`ge` are false when either side is null.
/// - `and`, `or` and `not` are three-valued (null is "unknown", as in SQL); a row passes a filter
///   only when the filter is true.
/// - Arithmetic keeps its operands' type (MS-ODATA binary numeric promotion: Int32 op Int32 is
///   Int32, Int64 op Int32 is Int64). Where the request's constants alone decide it, a division
///   or modulo by zero or an Integer result outside its type is refused when binding (400).
///   Over column values, which only the query meets, such a result is null instead: an Integer
///   result outside the range of its type (Int32 or Int64), a division or modulo by zero of any
///   type. So `Int32Column add 1 gt 0` is false, and `… eq null` true, where the column holds
///   2147483647: the row does not match, rather than matching with a silently widened value.
public indirect enum BoundExpression: Sendable {
    /// A constant. The type is nil only for the untyped `null` literal.
    case literal(EDMValue, PrimitiveType?)
    case member(MemberPath)
    /// A numeric conversion, from promotion or `cast`. Integral targets truncate toward zero,
    /// and a value outside the target's range is null (a constant one is refused when binding).
    case convert(BoundExpression, to: PrimitiveType)
    case negate(BoundExpression, type: PrimitiveType?)
    /// Both operands already have the result type (or are the untyped null).
    case arithmetic(ArithmeticOperator, BoundExpression, BoundExpression, type: PrimitiveType?)
    /// Both operands already have a common type (or one is the untyped null).
    case comparison(ComparisonOperator, BoundExpression, BoundExpression)
    case not(BoundExpression)
    case and(BoundExpression, BoundExpression)
    case or(BoundExpression, BoundExpression)
    /// A canonical function; the arguments already have the parameter types.
    case call(ExpressionFunction, [BoundExpression], type: PrimitiveType)

    /// The EDM type of the value; nil only for the untyped `null`.
    public var type: PrimitiveType? {
        switch self {
        case .literal(_, let type): return type
        case .member(let path): return path.property.type
        case .convert(_, let type): return type
        case .negate(_, let type), .arithmetic(_, _, _, let type): return type
        case .comparison, .not, .and, .or: return .boolean
        case .call(_, _, let type): return type
        }
    }

    /// True for the `null` literal, typed or not.
    public var isNullLiteral: Bool {
        if case .literal(let value, _) = self { return value.isNull }
        return false
    }
}

public enum ComparisonOperator: String, Sendable, CaseIterable {
    case equal = "eq"
    case notEqual = "ne"
    case lessThan = "lt"
    case lessThanOrEqual = "le"
    case greaterThan = "gt"
    case greaterThanOrEqual = "ge"

    /// True for `lt`, `le`, `gt` and `ge`, which need ordered operands.
    public var isOrdering: Bool { self != .equal && self != .notEqual }
}

public enum ArithmeticOperator: String, Sendable, CaseIterable {
    case add = "add"
    case subtract = "sub"
    case multiply = "mul"
    case divide = "div"
    case modulo = "mod"
}
