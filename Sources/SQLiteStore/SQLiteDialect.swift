import EDM
import ODataStore
import ODataURI

/// SQLite's SQL (see `SQLDialect`): `?` parameters, `json_each` key lists, `instr`/`substr`
/// string functions, `strftime` date parts, and the BINARY collation for ordinal comparison.
public struct SQLiteDialect: SQLDialect {
    public init() {}

    public func quote(_ identifier: String) -> String {
        // Built once per statement shape, but on every such build: no Foundation, and no copy
        // unless a quote must double.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        var quoted = "\""
        for character in identifier {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }

    public func placeholder(_ index: Int) -> String { "?" }

    public func limitClause(limit: String?, offset: String?) -> String {
        // SQLite takes OFFSET only after a LIMIT; -1 is none.
        switch (limit, offset) {
        case (nil, nil): return ""
        case (let limit?, nil): return " LIMIT " + limit
        case (let limit, let offset?): return " LIMIT " + (limit ?? "-1") + " OFFSET " + offset
        }
    }

    /// SQLite already sorts NULL first in ascending order and last in descending.
    public func orderTerm(_ term: String, descending: Bool) -> String {
        term + (descending ? " DESC" : " ASC")
    }

    /// `col IN (SELECT value FROM json_each(?))`, or the row-value form for composite keys.
    public func keyMembership(columns: [String], alias: String, placeholder: String) -> String {
        if columns.count == 1 {
            return column(alias, columns[0]) + " IN (SELECT value FROM json_each(" + placeholder + "))"
        }
        let left = "(" + columns.map { column(alias, $0) }.joined(separator: ", ") + ")"
        let parts = columns.indices.map { "json_extract(value, '$[\($0)]')" }.joined(separator: ", ")
        return left + " IN (SELECT " + parts + " FROM json_each(" + placeholder + "))"
    }

    /// The JSON text of the keys: `[1,2,3]`, or `[[1,"a"],[2,"b"]]` for composite keys.
    public func keyList(_ keys: [LinkKey]) -> SQLValue {
        .text(KeyList.json(keys))
    }

    public func castToReal(_ sql: String) -> String { "CAST(" + sql + " AS REAL)" }
    /// Through the functions the store registers on each connection (`SQLFunctions`): SQLite's
    /// own `CAST(x AS INTEGER)` saturates at 64 bits, and its 64-bit overflow gives a REAL.
    public func castToInteger(_ sql: String, within range: ClosedRange<Int64>) -> String {
        SQLFunctions.cast + "(" + sql + ", " + String(range.lowerBound) + ", " + String(range.upperBound) + ")"
    }

    public func integerResult(_ sql: String, within range: ClosedRange<Int64>) -> String {
        if range == Int64.min...Int64.max { return SQLFunctions.int64 + "(" + sql + ")" }
        if range == Int64(Int32.min)...Int64(Int32.max) { return SQLFunctions.int32 + "(" + sql + ")" }
        return castToInteger(sql, within: range)
    }
    /// Decimal text computed by `DecimalFunctions`, compared by their collation.
    public var exactDecimal: (any ExactDecimalSQL)? { Self.decimalFunctions }
    private static let decimalFunctions = DecimalFunctionSQL(
        convert: DecimalFunctions.convert, add: DecimalFunctions.add, subtract: DecimalFunctions.subtract,
        multiply: DecimalFunctions.multiply, divide: DecimalFunctions.divide, modulo: DecimalFunctions.modulo,
        negate: DecimalFunctions.negate, round: DecimalFunctions.round, floor: DecimalFunctions.floor,
        ceiling: DecimalFunctions.ceiling, sum: DecimalFunctions.sum, collation: " COLLATE " + DecimalFunctions.collation)

    /// Foreign keys are checked at COMMIT instead (reset by SQLite when the transaction ends).
    public var deferForeignKeyChecks: String? { "PRAGMA defer_foreign_keys = ON" }

    public var binaryCollation: String { " COLLATE BINARY" }
    public var trueValue: String { "1" }
    public var falseValue: String { "0" }

    public func nullSafeEqual(_ left: String, _ right: String, negated: Bool) -> String {
        "(" + left + (negated ? " IS NOT " : " IS ") + right + ")"
    }

    /// `%` is the integer remainder (sign of the dividend); `mod()` the floating one.
    public func remainder(_ left: String, _ right: String, integral: Bool) -> String {
        integral ? "(" + left + " % " + right + ")" : "mod(" + left + ", " + right + ")"
    }

    /// The characters .NET's String.Trim() removes (Char.IsWhiteSpace), as a SQL constant.
    private static let whitespaceCharacters = "char(9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198, 8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288)"

    public func function(_ function: ExpressionFunction, argumentCount: Int, argument arg: (Int) -> String) -> String {
        switch function {
        case .substringOf:
            // substringof(needle, haystack): instr(haystack, needle) names the haystack first.
            let h = arg(1)
            return "(instr(" + h + ", " + arg(0) + ") > 0)"
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
            if argumentCount == 3 {
                return "substr(" + s + ", max(" + start + ", 0) + 1, max(" + arg(2) + ", 0))"
            }
            return "substr(" + s + ", max(" + start + ", 0) + 1)"
        case .toLower:
            return SQLFunctions.lower + "(" + arg(0) + ")"
        case .toUpper:
            return SQLFunctions.upper + "(" + arg(0) + ")"
        case .trim:
            return "trim(" + arg(0) + ", " + Self.whitespaceCharacters + ")"
        case .concat:
            // As .NET's String.Concat, a null argument counts as the empty string.
            var parts: [String] = []
            for index in 0..<argumentCount { parts.append("COALESCE(" + arg(index) + ", '')") }
            return "(" + parts.joined(separator: " || ") + ")"
        case .round:
            return "round(" + arg(0) + ")"
        case .floor:
            return "floor(" + arg(0) + ")"
        case .ceiling:
            return "ceil(" + arg(0) + ")"
        case .year, .month, .day, .hour, .minute, .second:
            preconditionFailure("date parts are translated by datePart(_:of:isTime:)")
        }
    }

    public func datePart(_ function: ExpressionFunction, of sql: String, isTime: Bool) -> String {
        if isTime {
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

    /// An alias of the rowid; AUTOINCREMENT so that a deleted rowid is never reused.
    public func identityKeyColumn(_ type: PrimitiveType) -> String {
        "INTEGER PRIMARY KEY AUTOINCREMENT"
    }

    public func columnType(_ type: PrimitiveType) -> String {
        switch type {
        case .boolean, .byte, .sByte, .int16, .int32, .int64, .dateTime, .dateTimeOffset, .time: return "INTEGER"
        case .double, .single: return "REAL"
        case .binary: return "BLOB"
        case .decimal, .string, .guid: return "TEXT"
        }
    }
}
