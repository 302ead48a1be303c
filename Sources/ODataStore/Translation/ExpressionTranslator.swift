import EDM
import ODataURI

/// Translates a bound `$filter`/`$orderby` expression into SQL over the storage mapping
/// (see SQLValue+EDM.swift), keeping the semantics documented on `BoundExpression`; what
/// differs between engines comes from the context's `SQLDialect`.
///
/// - Every literal is a bound parameter; the SQL text holds only model names (quoted) and
///   constants of this translator and the dialect. Parameters are bound in the order they appear.
/// - Member paths through navigations use the context's LEFT JOIN aliases.
/// - Decimals are computed exactly where the dialect can (`SQLDialect.exactDecimal`: functions
///   over decimal text compared by a collation, or the engine's own decimal type), else as
///   doubles (`SQLDialect.castToReal`).
/// - Strings compare ordinally and case-sensitively (`SQLDialect.binaryCollation`).
public enum ExpressionTranslator {
    /// SQL whose value is the expression's value: 0/1/NULL for Booleans. Use it for `$orderby`
    /// keys and wherever the exact value matters.
    public static func sql(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        value(expression, &context)
    }

    /// `sql(for:in:)` as a term to order by, compare with a skip token's value or take the
    /// `min`/`max` of: with the exact decimal collation where the value is a decimal.
    public static func orderKey(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        let sql = value(expression, &context)
        guard expression.type == .decimal, let exact = context.dialect.exactDecimal else { return sql }
        return "(" + sql + exact.collation + ")"
    }

    /// SQL for a WHERE clause: true exactly where the filter is true. Where the difference
    /// cannot change the outcome it lets a comparison be unknown rather than false, which keeps
    /// plain comparisons index-friendly.
    public static func condition(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        switch expression {
        case .and, .or:
            return junction(expression, &context) { condition(for: $0, in: &$1) }
        case .comparison(let op, let left, let right):
            return comparison(op, left, right, unknownMeansFalse: true, &context)
        default:
            return value(expression, &context)
        }
    }

    /// True when the expression's value can be null: the translation of comparisons uses it to
    /// keep them two-valued only where needed.
    public static func mayBeNull(_ expression: BoundExpression) -> Bool {
        switch expression {
        case .literal(let value, _): return value.isNull
        case .member(let path): return path.mayBeNull
        case .convert(let inner, let target): return isNarrowing(from: inner.type, to: target) || mayBeNull(inner)
        case .not(let inner): return mayBeNull(inner)
        case .negate(let inner, let type):
            // An Integer result outside its type is null.
            return (type?.isIntegral ?? false) || mayBeNull(inner)
        case .arithmetic:
            // Division by zero is null, so is an Integer result outside its type, and so is a
            // floating result that overflows to NaN (SQLite has no NaN).
            return true
        case .comparison: return false
        case .and(let left, let right), .or(let left, let right): return mayBeNull(left) || mayBeNull(right)
        case .call(let function, let arguments, _):
            switch function {
            case .concat: return false
            // strftime gives NULL for instants outside the years it handles.
            case .day, .month, .year, .hour, .minute, .second: return true
            default: return arguments.contains(where: mayBeNull)
            }
        }
    }

    // MARK: Values

    private static func value(_ expression: BoundExpression, _ context: inout SQLBuildContext) -> String {
        switch expression {
        case .literal(let value, let type):
            return context.bind(parameter(value, type, exact: context.dialect.exactDecimal != nil), of: type)
        case .member(let path):
            let column = context.dialect.column(context.alias(for: path.navigations), path.property.columnName)
            switch path.property.type {
            case .decimal where context.dialect.exactDecimal == nil: return context.dialect.castToReal(column)
            // Compared, ordered and taken apart as its instant; the offset is only written back.
            case .dateTimeOffset: return DateTimeOffsetStorage.instant(column)
            default: return column
            }
        case .convert(let inner, let target):
            let source = inner.type
            let sql = value(inner, &context)
            if isNarrowing(from: source, to: target), let range = target.integerRange {
                return context.dialect.castToInteger(sql, within: range)
            }
            if let exact = context.dialect.exactDecimal, source != nil {
                // Decimal text from and to other numbers: exactly into it, as a double out of it.
                if target == .decimal && source != .decimal { return exact.convert(sql) }
                if source == .decimal && (target == .double || target == .single) { return context.dialect.castToReal(sql) }
            }
            if !target.isIntegral && (source?.isIntegral ?? false) { return context.dialect.castToReal(sql) }
            return sql
        case .negate(let inner, let type):
            if type == .decimal, let exact = context.dialect.exactDecimal {
                return exact.negate(value(inner, &context))
            }
            return inRange("(- " + value(inner, &context) + ")", type, context.dialect)
        case .arithmetic(let op, let left, let right, let type):
            let l = value(left, &context)
            let r = value(right, &context)
            if type == .decimal, let exact = context.dialect.exactDecimal {
                return exact.arithmetic(op, l, r)
            }
            switch op {
            // Integer operands divide with truncation toward zero, as in .NET.
            case .add, .subtract, .multiply, .divide:
                return inRange(context.dialect.arithmetic(op, l, r, integral: type?.isIntegral ?? false), type, context.dialect)
            // The integer remainder is never out of range.
            case .modulo: return context.dialect.remainder(l, r, integral: type?.isIntegral ?? true)
            }
        case .comparison(let op, let left, let right):
            return comparison(op, left, right, unknownMeansFalse: false, &context)
        case .not(let inner):
            return "(NOT " + value(inner, &context) + ")"
        case .and, .or:
            return junction(expression, &context) { value($0, &$1) }
        case .call(let function, let arguments, _):
            return call(function, arguments, &context)
        }
    }

    /// A chain of one of `and`/`or` (`a or b or c` binds as `(a or b) or c`) written flat,
    /// `(a OR b OR c)`: nested parentheses would cost the SQL parser a level each, and an
    /// `in`-list of a few hundred values would overflow its stack. Both are associative in
    /// three-valued logic, so the flat form means the same.
    private static func junction(_ expression: BoundExpression, _ context: inout SQLBuildContext,
                                 operand: (BoundExpression, inout SQLBuildContext) -> String) -> String {
        let isAnd: Bool
        switch expression {
        case .and: isAnd = true
        case .or: isAnd = false
        default: return operand(expression, &context)
        }
        var rightOperands: [BoundExpression] = []
        var leftmost = expression
        while true {
            switch leftmost {
            case .and(let left, let right) where isAnd, .or(let left, let right) where !isAnd:
                rightOperands.append(right)
                leftmost = left
                continue
            default: break
            }
            break
        }
        // Parameters are bound in text order: the leftmost operand first.
        var sql = "(" + operand(leftmost, &context)
        for right in rightOperands.reversed() {
            sql += isAnd ? " AND " : " OR "
            sql += operand(right, &context)
        }
        return sql + ")"
    }

    /// A conversion to an Integer type that not every source value survives (`cast` from a
    /// fractional type, or to a smaller Integer type): out of range, it is null.
    private static func isNarrowing(from source: PrimitiveType?, to target: PrimitiveType) -> Bool {
        guard let source, let range = target.integerRange else { return false }
        guard let sourceRange = source.integerRange else { return true }
        return sourceRange.lowerBound < range.lowerBound || sourceRange.upperBound > range.upperBound
    }

    /// An Integer result as a value of its type: null when it is outside the type's range
    /// (the dialect's `integerResult`), never silently widened.
    private static func inRange(_ sql: String, _ type: PrimitiveType?, _ dialect: any SQLDialect) -> String {
        guard let type, let range = type.integerRange else { return sql }
        return dialect.integerResult(sql, within: range)
    }

    /// The parameter for a literal, in the storage representation the comparison meets.
    private static func parameter(_ value: EDMValue, _ type: PrimitiveType?, exact: Bool) -> SQLValue {
        switch value {
        case .decimal(let text): return exact ? .text(text) : Double(text).map(SQLValue.real) ?? .null
        case .double(let number): return .real(number)
        case .dateTimeOffset(let milliseconds, _): return .integer(milliseconds)
        default: return SQLValue(value)
        }
    }

    // MARK: Comparisons

    /// Two-valued comparisons: `eq`/`ne` use `IS`/`IS NOT` when a side may be null, so that
    /// `null eq null` holds; the ordering operators are made false when a side is null, unless
    /// `unknownMeansFalse` says that a NULL result already counts as false.
    private static func comparison(_ op: ComparisonOperator, _ left: BoundExpression, _ right: BoundExpression,
                                   unknownMeansFalse: Bool, _ context: inout SQLBuildContext) -> String {
        if left.isNullLiteral || right.isNullLiteral {
            if left.isNullLiteral && right.isNullLiteral {
                return op == .equal ? context.dialect.trueValue : context.dialect.falseValue
            }
            switch op {
            case .equal: return "(" + value(left.isNullLiteral ? right : left, &context) + " IS NULL)"
            case .notEqual: return "(" + value(left.isNullLiteral ? right : left, &context) + " IS NOT NULL)"
            default: return context.dialect.falseValue
            }
        }
        let nullable = mayBeNull(left) || mayBeNull(right)
        var collation = left.type == .string || right.type == .string ? context.dialect.binaryCollation : ""
        if left.type == .decimal || right.type == .decimal, let exact = context.dialect.exactDecimal { collation = exact.collation }
        let l = value(left, &context)
        let r = value(right, &context) + collation
        switch op {
        case .equal: return nullable ? context.dialect.nullSafeEqual(l, r, negated: false) : "(" + l + " = " + r + ")"
        case .notEqual: return nullable ? context.dialect.nullSafeEqual(l, r, negated: true) : "(" + l + " <> " + r + ")"
        default:
            let symbol: String
            switch op {
            case .lessThan: symbol = " < "
            case .lessThanOrEqual: symbol = " <= "
            case .greaterThan: symbol = " > "
            default: symbol = " >= "
            }
            let sql = "(" + l + symbol + r + ")"
            return nullable && !unknownMeansFalse ? "COALESCE(" + sql + ", " + context.dialect.falseValue + ")" : sql
        }
    }

    // MARK: Functions

    private static func call(_ function: ExpressionFunction, _ arguments: [BoundExpression],
                             _ context: inout SQLBuildContext) -> String {
        if [.round, .floor, .ceiling].contains(function), arguments.first?.type == .decimal, let exact = context.dialect.exactDecimal {
            let sql = value(arguments[0], &context)
            return function == .round ? exact.round(sql) : function == .floor ? exact.floor(sql) : exact.ceiling(sql)
        }
        switch function {
        case .year, .month, .day, .hour, .minute, .second:
            let sql = value(arguments[0], &context)
            return context.dialect.datePart(function, of: sql, isTime: arguments[0].type == .time)
        default:
            // Each use of an argument translates it afresh, in the order the dialect writes
            // them, so that parameters line up.
            let dialect = context.dialect
            return dialect.function(function, argumentCount: arguments.count) { value(arguments[$0], &context) }
        }
    }
}
