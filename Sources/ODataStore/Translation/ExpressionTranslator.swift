import EDM
import ODataURI

/// Translates a bound `$filter`/`$orderby` expression into SQLite SQL over the storage mapping
/// (see SQLValue+EDM.swift), keeping the semantics documented on `BoundExpression`.
///
/// - Every literal is a bound parameter; the SQL text holds only model names (quoted) and
///   constants of this translator. Parameters are bound in the order their `?` appear.
/// - Member paths through navigations use the context's LEFT JOIN aliases.
/// - Decimals (stored as TEXT) are computed as REAL: `CAST(column AS REAL)`.
/// - Strings compare with the BINARY collation: ordinal, case-sensitive.
public enum ExpressionTranslator {
    /// SQL whose value is the expression's value: 0/1/NULL for Booleans. Use it for `$orderby`
    /// keys and wherever the exact value matters.
    public static func sql(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        value(expression, &context)
    }

    /// SQL for a WHERE clause: true exactly where the filter is true. Where the difference
    /// cannot change the outcome it lets a comparison be unknown rather than false, which keeps
    /// plain comparisons index-friendly.
    public static func condition(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        switch expression {
        case .and(let left, let right):
            let l = condition(for: left, in: &context)
            return "(" + l + " AND " + condition(for: right, in: &context) + ")"
        case .or(let left, let right):
            let l = condition(for: left, in: &context)
            return "(" + l + " OR " + condition(for: right, in: &context) + ")"
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
            return context.bind(parameter(value, type))
        case .member(let path):
            let column = SQL.column(context.alias(for: path.navigations), path.property.columnName)
            return path.property.type == .decimal ? "CAST(" + column + " AS REAL)" : column
        case .convert(let inner, let target):
            let source = inner.type
            let sql = value(inner, &context)
            if isNarrowing(from: source, to: target), let range = target.integralRange {
                return SQLFunctions.cast + "(" + sql + ", " + String(range.lowerBound) + ", " + String(range.upperBound) + ")"
            }
            if !target.isIntegral && (source?.isIntegral ?? false) { return "CAST(" + sql + " AS REAL)" }
            return sql
        case .negate(let inner, let type):
            return inRange("(- " + value(inner, &context) + ")", type)
        case .arithmetic(let op, let left, let right, let type):
            let l = value(left, &context)
            let r = value(right, &context)
            switch op {
            case .add: return inRange("(" + l + " + " + r + ")", type)
            case .subtract: return inRange("(" + l + " - " + r + ")", type)
            case .multiply: return inRange("(" + l + " * " + r + ")", type)
            // Integer operands divide with truncation toward zero, as in .NET.
            case .divide: return inRange("(" + l + " / " + r + ")", type)
            // `%` is the integer remainder (sign of the dividend), never out of range (SQLite
            // makes `x % -1` 0); `mod()` is the floating one.
            case .modulo: return (type?.isIntegral ?? true) ? "(" + l + " % " + r + ")" : "mod(" + l + ", " + r + ")"
            }
        case .comparison(let op, let left, let right):
            return comparison(op, left, right, unknownMeansFalse: false, &context)
        case .not(let inner):
            return "(NOT " + value(inner, &context) + ")"
        case .and(let left, let right):
            let l = value(left, &context)
            return "(" + l + " AND " + value(right, &context) + ")"
        case .or(let left, let right):
            let l = value(left, &context)
            return "(" + l + " OR " + value(right, &context) + ")"
        case .call(let function, let arguments, _):
            return call(function, arguments, &context)
        }
    }

    /// A conversion to an Integer type that not every source value survives (`cast` from a
    /// fractional type, or to a smaller Integer type): out of range, it is null.
    private static func isNarrowing(from source: PrimitiveType?, to target: PrimitiveType) -> Bool {
        guard let source, let range = target.integralRange else { return false }
        guard let sourceRange = source.integralRange else { return true }
        return sourceRange.lowerBound < range.lowerBound || sourceRange.upperBound > range.upperBound
    }

    /// An Integer result as a value of its type: null when it is outside the type's range.
    /// SQLite computes integers in 64 bits and turns a 64-bit overflow into a REAL; the
    /// functions (`SQLFunctions`) make both cases null, evaluating the operation once.
    private static func inRange(_ sql: String, _ type: PrimitiveType?) -> String {
        switch type {
        case .int32?: return SQLFunctions.int32 + "(" + sql + ")"
        case .int64?: return SQLFunctions.int64 + "(" + sql + ")"
        default: return sql
        }
    }

    /// The parameter for a literal, in the storage representation the comparison meets.
    private static func parameter(_ value: EDMValue, _ type: PrimitiveType?) -> SQLValue {
        switch value {
        case .decimal(let text): return Double(text).map(SQLValue.real) ?? .null
        case .double(let number): return .real(number)
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
                return op == .equal ? "1" : "0"
            }
            switch op {
            case .equal: return "(" + value(left.isNullLiteral ? right : left, &context) + " IS NULL)"
            case .notEqual: return "(" + value(left.isNullLiteral ? right : left, &context) + " IS NOT NULL)"
            default: return "0"
            }
        }
        let nullable = mayBeNull(left) || mayBeNull(right)
        let collation = left.type == .string || right.type == .string ? " COLLATE BINARY" : ""
        let l = value(left, &context)
        let r = value(right, &context) + collation
        switch op {
        case .equal: return "(" + l + (nullable ? " IS " : " = ") + r + ")"
        case .notEqual: return "(" + l + (nullable ? " IS NOT " : " <> ") + r + ")"
        default:
            let symbol: String
            switch op {
            case .lessThan: symbol = " < "
            case .lessThanOrEqual: symbol = " <= "
            case .greaterThan: symbol = " > "
            default: symbol = " >= "
            }
            let sql = "(" + l + symbol + r + ")"
            return nullable && !unknownMeansFalse ? "COALESCE(" + sql + ", 0)" : sql
        }
    }

    // MARK: Functions

    /// The characters .NET's String.Trim() removes (Char.IsWhiteSpace), as a SQL constant.
    private static let whitespaceCharacters = "char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288)"

    private static func call(_ function: ExpressionFunction, _ arguments: [BoundExpression],
                             _ context: inout SQLBuildContext) -> String {
        // Arguments are translated in the order they appear in the SQL, so parameters line up.
        func arg(_ index: Int) -> String { value(arguments[index], &context) }
        switch function {
        case .substringOf:
            // substringof(needle, haystack): instr(haystack, needle) names the haystack first.
            let needle = arguments[0], haystack = arguments[1]
            let h = value(haystack, &context)
            return "(instr(" + h + ", " + value(needle, &context) + ") > 0)"
        case .startsWith:
            let s = arg(0)
            return "(instr(" + s + ", " + arg(1) + ") = 1)"
        case .endsWith:
            // The tail of s as long as p equals p, and s is at least as long as p.
            let s1 = arg(0), s2 = arg(0), p1 = arg(1), p2 = arg(1), s3 = arg(0), p3 = arg(1)
            return "(substr(" + s1 + ", length(" + s2 + ") - length(" + p1 + ") + 1) = " + p2
                + " AND length(" + s3 + ") >= length(" + p3 + "))"
        case .length:
            return "length(" + arg(0) + ")"
        case .indexOf:
            let s = arg(0)
            return "(instr(" + s + ", " + arg(1) + ") - 1)"
        case .replace:
            let s = arg(0), find = arg(1)
            return "replace(" + s + ", " + find + ", " + arg(2) + ")"
        case .substring:
            // Zero-based; a negative start counts as 0, a negative length as 0.
            let s = arg(0), start = arg(1)
            if arguments.count == 3 {
                return "substr(" + s + ", max(" + start + ", 0) + 1, max(" + arg(2) + ", 0))"
            }
            return "substr(" + s + ", max(" + start + ", 0) + 1)"
        case .toLower:
            return "lower(" + arg(0) + ")"
        case .toUpper:
            return "upper(" + arg(0) + ")"
        case .trim:
            return "trim(" + arg(0) + ", " + whitespaceCharacters + ")"
        case .concat:
            // As .NET's String.Concat, a null argument counts as the empty string.
            var parts: [String] = []
            for index in arguments.indices { parts.append("COALESCE(" + arg(index) + ", '')") }
            return "(" + parts.joined(separator: " || ") + ")"
        case .year, .month, .day, .hour, .minute, .second:
            return datePart(function, arguments[0], &context)
        case .round:
            return "round(" + arg(0) + ")"
        case .floor:
            return "floor(" + arg(0) + ")"
        case .ceiling:
            return "ceil(" + arg(0) + ")"
        }
    }

    /// Parts of a DateTime/DateTimeOffset (milliseconds since the epoch, read in UTC) or of a
    /// Time (milliseconds since midnight).
    private static func datePart(_ function: ExpressionFunction, _ argument: BoundExpression,
                                 _ context: inout SQLBuildContext) -> String {
        let sql = value(argument, &context)
        if argument.type == .time {
            switch function {
            case .hour: return "((" + sql + " / 3600000) % 24)"
            case .minute: return "((" + sql + " / 60000) % 60)"
            default: return "((" + sql + " / 1000) % 60)"
            }
        }
        let format: String
        switch function {
        case .year: format = "%Y"
        case .month: format = "%m"
        case .day: format = "%d"
        case .hour: format = "%H"
        case .minute: format = "%M"
        default: format = "%S"
        }
        return "CAST(strftime('" + format + "', " + sql + " / 1000.0, 'unixepoch') AS INTEGER)"
    }
}
