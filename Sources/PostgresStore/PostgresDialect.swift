import EDM
import ODataStore
import ODataURI

/// PostgreSQL's SQL (see `SQLDialect`): `$n` parameters, `= ANY($n)` key lists, `strpos`/`substr`
/// string functions, date parts computed from the stored milliseconds, and the "C" collation for
/// ordinal comparison. Parameters are numbered, so an expression's text may appear twice in a
/// statement and still refer to the same values.
///
/// The storage mapping follows SQLite's where values are compared, so that both engines answer a
/// `$filter` alike: DateTime, DateTimeOffset and Time are milliseconds (since the epoch, UTC, or
/// since midnight) in a BIGINT; Guid is TEXT; Single is stored as DOUBLE PRECISION, as SQLite
/// keeps it; text compares and sorts by code point (COLLATE "C").
public struct PostgresDialect: SQLDialect {
    public init() {}

    /// Text and bytea as escape strings (`E'...'`), which read the same whatever the server's
    /// standard_conforming_strings says; the rest is standard SQL.
    public func literal(_ value: SQLValue) -> String {
        switch value {
        case .text(let text):
            var escaped = "E'"
            for character in text.unicodeScalars {
                if character == "\\" || character == "'" { escaped.unicodeScalars.append(character) }
                escaped.unicodeScalars.append(character)
            }
            return escaped + "'"
        case .blob(let bytes):
            return "E'\\\\x" + Self.hexDigits(bytes) + "'::bytea"
        default:
            return standardLiteral(value)
        }
    }

    public func quote(_ identifier: String) -> String {
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        var quoted = "\""
        for character in identifier {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }

    public func placeholder(_ index: Int) -> String { "$" + String(index + 1) }

    public func limitClause(limit: String?, offset: String?) -> String {
        var clause = ""
        if let limit { clause += " LIMIT " + limit }
        if let offset { clause += " OFFSET " + offset }
        return clause
    }

    /// PostgreSQL sorts NULL last ascending by default; the contract wants it first.
    public func orderTerm(_ term: String, descending: Bool) -> String {
        term + (descending ? " DESC NULLS LAST" : " ASC NULLS FIRST")
    }

    /// A key is never NULL, and `ASC NULLS FIRST` is not the order of its index (`ASC NULLS
    /// LAST`): with it a page in key order sorted the whole table instead of reading the index.
    public func keyOrderTerm(_ term: String) -> String { term + " ASC" }

    /// `col = ANY($n)`: the parameter is sent untyped, so the server reads it as an array of the
    /// key column's type and the key's index serves the lookup. A composite key compares the
    /// text of each column with the elements of a JSON array of tuples.
    public func keyMembership(columns: [String], alias: String, placeholder: String) -> String {
        if columns.count == 1 {
            return column(alias, columns[0]) + " = ANY(" + placeholder + ")"
        }
        let left = "(" + columns.map { "CAST(" + column(alias, $0) + " AS TEXT)" }.joined(separator: ", ") + ")"
        let parts = columns.indices.map { "key ->> \($0)" }.joined(separator: ", ")
        return left + " IN (SELECT " + parts + " FROM jsonb_array_elements(CAST(" + placeholder + " AS jsonb)) AS keys(key))"
    }

    /// An array literal (`{1,2,3}`, `{"a","b"}`) for a single-column key; JSON (`[[1,"a"]]`) for
    /// composite keys.
    public func keyList(_ keys: [LinkKey]) -> SQLValue {
        if keys.allSatisfy({ $0.rest.isEmpty }) {
            return .text("{" + keys.map { Self.arrayElement($0.first) }.joined(separator: ",") + "}")
        }
        return .text("[" + keys.map { key in
            "[" + ([key.first] + key.rest).map(Self.jsonText).joined(separator: ",") + "]"
        }.joined(separator: ",") + "]")
    }

    private static func arrayElement(_ value: SQLValue) -> String {
        switch value {
        case .null: return "NULL"
        case .integer(let i): return String(i)
        case .real(let d): return d.isFinite ? String(d) : "NULL"
        case .text(let s):
            var quoted = "\""
            for character in s {
                if character == "\"" || character == "\\" { quoted.append("\\") }
                quoted.append(character)
            }
            return quoted + "\""
        case .blob(let bytes):
            return "\"\\\\x" + Self.hexDigits(bytes) + "\""
        }
    }

    /// A composite key's component as JSON whose `->>` text equals the column's text.
    private static func jsonText(_ value: SQLValue) -> String {
        switch value {
        case .null, .blob: return "null"
        case .integer(let i): return String(i)
        case .real(let d): return d.isFinite ? String(d) : "null"
        case .text(let s):
            var text = "\""
            for scalar in s.unicodeScalars {
                switch scalar {
                case "\"": text += "\\\""
                case "\\": text += "\\\\"
                case _ where scalar.value < 0x20:
                    let hex = String(scalar.value, radix: 16)
                    text += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                default: text.unicodeScalars.append(scalar)
                }
            }
            return text + "\""
        }
    }

    public func castToReal(_ sql: String) -> String { "CAST(" + sql + " AS DOUBLE PRECISION)" }

    /// Truncated toward zero in NUMERIC, where no value saturates or overflows, and NULL outside
    /// `range` (NaN, above every number in PostgreSQL, is outside too).
    public func castToInteger(_ sql: String, within range: ClosedRange<Int64>) -> String {
        integerResult("trunc(CAST(" + sql + " AS NUMERIC))", within: range)
    }

    /// Integer arithmetic is computed in NUMERIC (`arithmetic`), where nothing overflows: a
    /// result outside `range` is NULL, as on SQLite, rather than PostgreSQL's overflow error.
    /// The operand appears once: clamped to one past either end (LEAST and GREATEST pass NULL
    /// through as the bound, which NULLIF then drops), and those two values are NULL.
    public func integerResult(_ sql: String, within range: ClosedRange<Int64>) -> String {
        let below = "(" + String(range.lowerBound) + "::NUMERIC - 1)", above = "(" + String(range.upperBound) + "::NUMERIC + 1)"
        return "CAST(NULLIF(NULLIF(GREATEST(LEAST(" + sql + ", " + above + "), " + below + "), " + above + "), " + below + ") AS BIGINT)"
    }

    /// `body` over `sql` evaluated once, as `v`: an operand written twice would double the
    /// statement at every level of nesting, so that a filter within the depth bound could still
    /// make a statement too large to plan. A scalar subquery over one value per row; `OFFSET 0`
    /// keeps the planner from pulling the inner one up, which would write the operand into
    /// each use again.
    private static func once(_ sql: String, _ body: (String) -> String) -> String {
        "(SELECT " + body("v") + " FROM (SELECT " + sql + " AS v OFFSET 0) AS once)"
    }

    /// `body` over two operands evaluated once each, as `a` and `b`.
    private static func once(_ first: String, _ second: String, _ body: (String, String) -> String) -> String {
        "(SELECT " + body("a", "b") + " FROM (SELECT " + first + " AS a, " + second + " AS b OFFSET 0) AS once)"
    }

    /// A Boolean is bound as the integer 0 or 1 (its storage form on every engine); here it
    /// becomes a boolean, which BOOLEAN columns and conditions compare with.
    /// A literal's parameter cast to its storage type: parameters are sent untyped, and one that
    /// stands alone (`$1 IS NULL`, `$1 + $2`) has nothing to infer its type from. A Boolean is
    /// bound as the integer 0 or 1 (its storage form on every engine) and becomes a boolean.
    public func parameter(_ placeholder: String, of type: PrimitiveType?) -> String {
        guard let type else { return placeholder }
        switch type {
        case .boolean: return "(CAST(" + placeholder + " AS BIGINT) <> 0)"
        case .byte, .sByte, .int16, .int32, .int64, .dateTime, .dateTimeOffset, .time: return "CAST(" + placeholder + " AS BIGINT)"
        case .double, .single: return "CAST(" + placeholder + " AS DOUBLE PRECISION)"
        // A Decimal literal is bound as its text (`exactDecimal`).
        case .decimal: return "CAST(" + placeholder + " AS NUMERIC)"
        case .string, .guid: return "CAST(" + placeholder + " AS TEXT)"
        case .binary: return "CAST(" + placeholder + " AS BYTEA)"
        }
    }

    /// Integer operands in NUMERIC, so that no intermediate result overflows (`integerResult`
    /// decides), divided with truncation toward zero; a division by zero is NULL, not an error.
    public func arithmetic(_ op: ArithmeticOperator, _ left: String, _ right: String, integral: Bool) -> String {
        if op == .modulo { return remainder(left, right, integral: integral) }
        let l = integral ? "CAST(" + left + " AS NUMERIC)" : left
        let r = integral ? "CAST(" + right + " AS NUMERIC)" : right
        switch op {
        case .add: return "(" + l + " + " + r + ")"
        case .subtract: return "(" + l + " - " + r + ")"
        case .multiply: return "(" + l + " * " + r + ")"
        default:
            let quotient = "(" + l + " / NULLIF(" + r + ", 0))"
            return integral ? "trunc" + quotient : quotient
        }
    }

    /// Decimals are NUMERIC, exact in `$filter` as in storage.
    public var exactDecimal: (any ExactDecimalSQL)? { Self.decimalSQL }
    /// Write transactions are READ COMMITTED: a row another writer holds is waited for, then
    /// read as that writer left it.
    public var rowLockClause: String? { " FOR UPDATE" }
    private static let decimalSQL = PostgresDecimalSQL()

    public var binaryCollation: String { " COLLATE \"C\"" }
    public var trueValue: String { "TRUE" }
    public var falseValue: String { "FALSE" }

    public func nullSafeEqual(_ left: String, _ right: String, negated: Bool) -> String {
        "(" + left + (negated ? " IS DISTINCT FROM " : " IS NOT DISTINCT FROM ") + right + ")"
    }

    /// A remainder by zero is NULL, as on SQLite, not an error; the floating one is computed in
    /// NUMERIC (PostgreSQL has no `mod` of doubles) with the sign of the dividend, as fmod.
    public func remainder(_ left: String, _ right: String, integral: Bool) -> String {
        if integral { return "(" + left + " % NULLIF(" + right + ", 0))" }
        return "CAST(mod(CAST(" + left + " AS NUMERIC), CAST(NULLIF(" + right + ", 0) AS NUMERIC)) AS DOUBLE PRECISION)"
    }

    /// The characters .NET's String.Trim() removes (Char.IsWhiteSpace), as a SQL constant.
    private static let whitespaceCharacters = "(" + [9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198,
                                                     8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288]
        .map { "chr(\($0))" }.joined(separator: " || ") + ")"

    /// A string position or length as the INTEGER `substr` takes: below 0 it is 0, past a
    /// billion (more than any text holds) a billion, and NULL stays NULL (which LEAST and
    /// GREATEST would ignore).
    private static func clampedInteger(_ sql: String) -> String {
        once(sql) { v in "CAST(CASE WHEN " + v + " < 0 THEN 0 WHEN " + v + " > 1000000000 THEN 1000000000 ELSE " + v + " END AS INTEGER)" }
    }

    /// The collation whose `lower`/`upper` map every Unicode letter, one character to one, as
    /// .NET's invariant culture does ("C" maps ASCII only).
    public static let caseMappingCollation = "\"C.utf8\""

    public func function(_ function: ExpressionFunction, argumentCount: Int, argument arg: (Int) -> String) -> String {
        switch function {
        case .substringOf:
            // substringof(needle, haystack): strpos(haystack, needle) names the haystack first.
            let h = arg(1)
            return "(strpos(" + h + ", " + arg(0) + ") > 0)"
        case .startsWith:
            let s = arg(0)
            return "(strpos(" + s + ", " + arg(1) + ") = 1)"
        case .endsWith:
            return Self.once(arg(0), arg(1)) { s, p in
                "(right(" + s + ", length(" + p + ")) = " + p + binaryCollation + " AND length(" + s + ") >= length(" + p + "))"
            }
        case .length:
            return "CAST(length(" + arg(0) + ") AS BIGINT)"
        case .indexOf:
            let s = arg(0)
            return "CAST(strpos(" + s + ", " + arg(1) + ") - 1 AS BIGINT)"
        case .replace:
            let s = arg(0), find = arg(1)
            return "replace(" + s + ", " + find + ", " + arg(2) + ")"
        case .substring:
            // Zero-based; a negative start counts as 0, a negative length as 0.
            let s = arg(0), start = arg(1)
            if argumentCount == 3 {
                return "substr(" + s + ", " + Self.clampedInteger(start) + " + 1, " + Self.clampedInteger(arg(2)) + ")"
            }
            return "substr(" + s + ", " + Self.clampedInteger(start) + " + 1)"
        case .toLower:
            return "(lower(" + arg(0) + " COLLATE " + Self.caseMappingCollation + ") COLLATE \"C\")"
        case .toUpper:
            return "(upper(" + arg(0) + " COLLATE " + Self.caseMappingCollation + ") COLLATE \"C\")"
        case .trim:
            return "btrim(" + arg(0) + ", " + Self.whitespaceCharacters + ")"
        case .concat:
            // As .NET's String.Concat, a null argument counts as the empty string.
            var parts: [String] = []
            for index in 0..<argumentCount { parts.append("COALESCE(CAST(" + arg(index) + " AS TEXT), '')") }
            return "(" + parts.joined(separator: " || ") + ")"
        case .round:
            // Half away from zero, as SQLite's round() and .NET's MidpointRounding.AwayFromZero;
            // PostgreSQL's round of a double rounds half to even.
            return Self.once(arg(0)) { x in
                "(CASE WHEN abs(CAST(" + x + " AS DOUBLE PRECISION)) < 4503599627370496.0 THEN trunc(CAST(" + x
                    + " AS DOUBLE PRECISION) + CASE WHEN " + x + " < 0 THEN -0.5 ELSE 0.5 END) ELSE CAST(" + x + " AS DOUBLE PRECISION) END)"
            }
        case .floor:
            return "floor(CAST(" + arg(0) + " AS DOUBLE PRECISION))"
        case .ceiling:
            return "ceil(CAST(" + arg(0) + " AS DOUBLE PRECISION))"
        case .year, .month, .day, .hour, .minute, .second:
            preconditionFailure("date parts are translated by datePart(_:of:isTime:)")
        }
    }

    /// The milliseconds of the earliest and latest instants SQLite's `strftime` handles (years
    /// 0000 to 9999): outside them a date part is NULL on both engines.
    private static let instantRange = "-62167219200000 AND 253402300799999"

    public func datePart(_ function: ExpressionFunction, of sql: String, isTime: Bool) -> String {
        if isTime {
            switch function {
            case .hour: return "((" + sql + " / 3600000) % 24)"
            case .minute: return "((" + sql + " / 60000) % 60)"
            default: return "((" + sql + " / 1000) % 60)"
            }
        }
        // Whole days and the milliseconds within them, each exact, added to the epoch.
        func instant(_ sql: String) -> String {
            "(TIMESTAMP '1970-01-01' + (" + sql + " / 86400000) * INTERVAL '1 day' + (" + sql + " % 86400000) * INTERVAL '1 millisecond')"
        }
        let field: String
        switch function {
        case .year: field = "YEAR"
        case .month: field = "MONTH"
        case .day: field = "DAY"
        case .hour: field = "HOUR"
        case .minute: field = "MINUTE"
        default: field = "SECOND"
        }
        return Self.once(sql) { v in
            "(CASE WHEN " + v + " BETWEEN " + Self.instantRange + " THEN CAST(floor(EXTRACT(" + field + " FROM "
                + instant(v) + ")) AS BIGINT) END)"
        }
    }

    /// An identity column: BY DEFAULT, so that seed rows keep their keys; a sequence never hands
    /// out a number twice, so a deleted entity's URI never comes back.
    public func identityKeyColumn(_ type: PrimitiveType) -> String {
        columnType(type) + " GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
    }

    /// The column type of a primitive type; a Decimal's precision and scale come from its
    /// property (`PostgresSchema`). Text sorts by code point, as on SQLite.
    public func columnType(_ type: PrimitiveType) -> String {
        switch type {
        case .boolean: return "BOOLEAN"
        case .byte, .sByte, .int16: return "SMALLINT"
        case .int32: return "INTEGER"
        case .int64, .dateTime, .dateTimeOffset, .time: return "BIGINT"
        case .double, .single: return "DOUBLE PRECISION"
        case .decimal: return "NUMERIC"
        case .string, .guid: return "TEXT COLLATE \"C\""
        case .binary: return "BYTEA"
        }
    }
}

extension PostgresDialect {
    /// Two lowercase hex digits per byte, as bytea's hex form writes them.
    static func hexDigits(_ bytes: [UInt8]) -> String {
        bytes.map { byte in
            let hex = String(byte, radix: 16)
            return hex.count == 1 ? "0" + hex : hex
        }.joined()
    }
}
