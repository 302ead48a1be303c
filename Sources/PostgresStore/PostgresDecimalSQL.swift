import ODataStore
import ODataURI

/// Edm.Decimal in PostgreSQL's own NUMERIC, which is exact: its operators and functions, with
/// .NET's results where PostgreSQL's differ (a quotient to 28 places, half away from zero,
/// where NUMERIC's own division keeps as few as 16 significant digits; NULL, not an error, for
/// a zero divisor). NUMERIC compares by value, so there is no collation.
struct PostgresDecimalSQL: ExactDecimalSQL {
    /// Through its shortest text, so that a double becomes the decimal SQLite's `edm_dec` makes
    /// of it (a plain cast keeps 15 significant digits).
    func convert(_ sql: String) -> String { "CAST(CAST(" + sql + " AS TEXT) AS NUMERIC)" }

    func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String) -> String {
        switch op {
        case .add: return "(" + left + " + " + right + ")"
        case .subtract: return "(" + left + " - " + right + ")"
        case .multiply: return "(" + left + " * " + right + ")"
        case .modulo: return "mod(" + left + ", NULLIF(" + right + ", 0))"
        case .divide:
            // The dividend scaled by 10^28, divided as integers (truncated toward zero), then
            // rounded half away from zero by the remainder, and scaled back; all exact. The
            // operands are named once in a subquery, so nested quotients don't repeat them.
            return "(SELECT (div(n, d) + CASE WHEN 2 * abs(mod(n, d)) >= abs(d) THEN sign(n) * sign(d) ELSE 0 END) * "
                + Self.unit + " FROM (SELECT (" + left + ") * " + Self.scale + " AS n, NULLIF(" + right + ", 0) AS d OFFSET 0) AS quotient)"
        }
    }

    func negate(_ sql: String) -> String { "(- " + sql + ")" }
    /// NUMERIC's `round` is half away from zero, as .NET's decimal rounding here.
    func round(_ sql: String) -> String { "round(" + sql + ")" }
    func floor(_ sql: String) -> String { "floor(" + sql + ")" }
    func ceiling(_ sql: String) -> String { "ceiling(" + sql + ")" }
    func sum(_ sql: String) -> String { "sum(" + sql + ")" }
    var collation: String { "" }

    /// 10^28 and 10^-28: a quotient's decimal places (.NET's largest decimal scale, as on SQLite).
    private static let scale = "1" + String(repeating: "0", count: 28)
    private static let unit = "0." + String(repeating: "0", count: 27) + "1"
}
