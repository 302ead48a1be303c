import EDM
import Foundation
import ODataStore
import SQLiteStore
import ODataURI
import Testing

/// The translation to SQL, run by SQLite on a small table with one property of every EDM type
/// and rows chosen for the edge cases (nulls, negatives, case, Unicode, pre-1970 instants).
/// Each filter's rows are checked three ways: the value translation wrapped in `IS 1` (as the
/// query engine uses it), the condition translation, and the reference evaluator.
@Suite(.serialized) struct ExpressionSQLTests {
    nonisolated(unsafe) static let database = try! ExpressionFixture.allTypesDatabase()
    static let reference = try! ReferenceEvaluator(model: ExpressionFixture.allTypes, database: database)
    static let samples = ExpressionFixture.type("Samples", in: ExpressionFixture.allTypes)
    static let all = Array(1...8)
    static let named = [1, 2, 3, 4, 5, 7, 8]

    static let filters: [(filter: String, ids: [Int])] = [
        // Comparisons, with two-valued null semantics.
        ("number eq 7", [4]),
        ("number ne 7", [1, 2, 3, 5, 6, 7, 8]),
        ("number gt 0", [1, 4, 5, 8]),
        ("number le 0", [2, 3, 7]),
        ("not (number gt 0)", [2, 3, 6, 7]),
        ("number eq null", [6]),
        ("null eq number", [6]),
        ("number ne null", [1, 2, 3, 4, 5, 7, 8]),
        ("number gt null", []),
        ("not (number lt null)", all),
        ("null eq null", all),
        ("null ne null", []),
        ("number eq 7L", [4]),
        ("number eq 7.0", [4]),
        ("number gt 2.5M", [1, 4, 5, 8]),
        // Three-valued and, or, not over nullable Booleans.
        ("flag", [1, 3]),
        ("not flag", [2, 5]),
        ("flag eq false", [2, 5]),
        ("flag ne true", [2, 4, 5, 6, 7, 8]),
        ("flag eq null", [4, 6, 7, 8]),
        ("not (flag eq true)", [2, 4, 5, 6, 7, 8]),
        ("flag or number gt 5", [1, 3, 4, 5]),
        ("not (flag or number gt 5)", [2]),
        ("flag and number gt 5", [1]),
        ("not (flag and number gt 5)", [2, 3, 5, 6, 7, 8]),
        ("flag gt false", [1, 3]),
        ("null", []),
        ("not null", []),
        ("null or true", all),
        ("null and false or true", all),
        ("true", all),
        ("false", []),
        // Precedence, as SQLite sees it.
        ("number gt 0 and number lt 8 or number eq -10", [4, 7, 8]),
        ("number gt 0 and (number lt 8 or number eq -10)", [4, 8]),
        ("number lt 5 eq true", [2, 3, 7, 8]),
        // Strings: ordinal, case-sensitive.
        ("name gt 'a'", [2, 8]),
        ("name lt 'B'", [1, 3, 4, 7]),
        ("name eq 'alpha'", []),
        ("name eq 'Alpha'", [1]),
        ("name eq 'O''Brien'", [5]),
        ("name eq ''", [4]),
        ("name eq 'zeta ünïcode ß'", [8]),
        ("tolower(name) eq 'alpha'", [1, 7]),
        ("toupper(name) eq 'ALPHA'", [1, 7]),
        // tolower/toupper map by Unicode one character to one, as .NET's invariant mappings:
        // ß has no one-character upper case and stays ß.
        ("toupper(name) eq 'ZETA ÜNÏCODE ß'", [8]),
        ("toupper(name) eq 'ZETA ÜNÏCODE SS'", []),
        ("tolower('ZETA ÜNÏCODE ß') eq name", [8]),
        ("length(toupper(name)) eq 14", [8]),
        ("toupper('ﬁ') eq 'ﬁ' and tolower('İ') eq 'i' and toupper('é') eq 'É' and endswith(name, 'ß')", [8]),
        ("startswith(name, 'Al')", [1]),
        ("startswith(name, '')", named),
        ("startswith(name, 'Alphabet')", []),
        ("endswith(name, 'ha')", [1]),
        ("endswith(name, 'HA')", [7]),
        ("endswith(name, '')", named),
        ("endswith(name, 'xAlpha')", []),
        ("endswith(name, 'ß')", [8]),
        ("endswith(name, 'a') eq false", [3, 4, 5, 7, 8]),
        ("substringof('lph', name)", [1]),
        ("substringof('', name)", named),
        ("substringof(name, 'xAlphax')", [1, 4]),
        ("not substringof('a', name)", [4, 5, 7]),
        ("length(name) eq 5", [1, 7]),
        ("length(name) eq 14", [8]),
        ("length(name) eq 0", [4]),
        ("length(name) gt 100", []),
        ("indexof(name, 'a') eq 4", [1]),
        ("indexof(name, 'zz') eq -1", named),
        ("indexof(name, '') eq 0", named),
        ("indexof(name, 'ß') eq 13", [8]),
        ("replace(name, 'a', 'A') eq 'AlphA'", [1]),
        ("replace(name, '', 'x') eq name", all),
        ("replace(name, 'l', '') eq 'Apha'", [1]),
        ("substring(name, 1) eq 'lpha'", [1]),
        ("substring(name, 1, 2) eq 'lp'", [1]),
        ("substring(name, 0, 0) eq ''", named),
        ("substring(name, -1, 2) eq 'Al'", [1]),
        ("substring(name, 10) eq ''", [1, 2, 3, 4, 5, 7]),
        ("substring(name, 1, -1) eq ''", named),
        ("substring(name, 5, 100) eq 'ünïcode ß'", [8]),
        ("trim(name) eq 'Gamma'", [3]),
        ("trim(name) eq name", [1, 2, 4, 5, 6, 7, 8]),
        ("concat(name, 'x') eq 'x'", [4, 6]),
        ("concat(name, concat(' ', name)) eq 'Alpha Alpha'", [1]),
        ("concat(concat(name, name), name) eq 'betabetabeta'", [2]),
        ("concat(name, name, name) eq 'betabetabeta'", [2]),
        // Decimals compare as numbers, not as their stored text.
        ("amount gt 12.5", [3]),
        ("amount eq 12.5", [1]),
        ("amount eq 12.50M", [1]),
        ("amount ge 12.5M", [1, 3]),
        ("amount lt 2.5", [2, 4, 5, 7]),
        ("amount gt 3", [1, 3]),
        ("amount gt real", [1, 2, 3, 4, 8]),
        ("amount add 0.5 eq 13", [1]),
        // Arithmetic.
        ("number add 1 eq 11", [1]),
        ("number sub 10 eq 0", [1]),
        ("number mul 2 eq -14", [2]),
        ("number div 2 eq -3", [2]),
        ("number div 4 eq 2", [1]),
        ("number mod 3 eq -1", [2, 7]),
        ("number mod 3 eq 1", [1, 4, 5]),
        // Over column values, division by zero and an Integer result outside its type are
        // null: the row does not match a comparison (but does match `eq null`).
        ("number div (number sub number) eq null", all),
        ("number mod (number sub number) ne null", []),
        ("real div 0 eq null", all),
        ("number add 2147483647 eq null", [1, 4, 5, 6, 8]),
        ("number add 2147483647 gt 2147483647", []),
        ("number add 2147483647 lt 0", []),
        ("number add 2147483647L gt 2147483647", [1, 4, 5, 8]),
        ("number sub 2147483647 sub 2 eq null", [2, 3, 6, 7]),
        ("number mul number gt 1000", []),
        ("number mul number eq null", [5, 6]),
        ("-(number add 1) eq null", [5, 6]),
        ("number mod -1 eq 0", named),
        ("big mul 1000000000L eq null", [1, 3, 5, 6, 7, 8]),
        ("big mul 1000000000L gt 0", [4]),
        ("big mul 1000000000L ne -2000000000L", [1, 3, 4, 5, 6, 7, 8]),
        ("real div 2 eq 1.25", [1]),
        ("cast(number, 'Edm.Double') div 4 eq 2.5", [1]),
        ("real mod 2 eq 0.5", [1]),
        ("real mod 2 eq -0.5", [2, 4]),
        ("amount mod 5 eq 2.5", [1]),
        ("amount mod 5 eq -2.5", [5]),
        ("-number eq 7", [2]),
        ("-real gt 3", [8]),
        ("- -number eq 7", [4]),
        ("tiny add small eq 555", [2]),
        ("tiny mul tiny eq 65025", [2]),
        ("big gt 5000000000", [1]),
        ("big eq -2L", [2]),
        ("big gt number", [1, 2]),
        ("single lt 0", [2]),
        ("single eq 0.5f", [1]),
        ("single eq 0.5", [1]),
        ("single lt real", [1]),
        ("number add null eq null", all),
        // Casts: integral targets truncate toward zero.
        ("cast(real, 'Edm.Int32') eq 2", [1]),
        ("cast(real, 'Edm.Int32') eq -2", [2]),
        ("cast(real, 'Edm.Int32') eq 0", [3, 4]),
        ("cast(amount, 'Edm.Int64') eq -12L", [5]),
        ("cast(number, 'Edm.Decimal') eq 10", [1]),
        // A value outside the target type's range is null, not saturated or kept.
        ("cast(real, 'Edm.Int64') eq null", [5, 6]),
        ("cast(real, 'Edm.Int32') lt 0", [2, 8]),
        ("cast(big, 'Edm.Int32') eq null", [1, 3, 5, 6, 7, 8]),
        ("cast(small, 'Edm.Byte') eq null", [1, 2, 3, 4, 5, 6, 7]),
        ("cast(number, 'Edm.Int16') eq null", [5, 6]),
        ("cast(amount, 'Edm.SByte') eq 100", [3]),
        // Math functions: round half away from zero; floor and ceiling of negatives.
        ("round(real) eq 3", [1]),
        ("round(real) eq -3", [2]),
        ("round(real) eq -1", [4]),
        ("round(real) eq 0", [3]),
        ("round(real) eq 4", [7]),
        ("floor(real) eq -3", [2]),
        ("floor(real) eq 0", [3]),
        ("floor(real) eq -4", [8]),
        ("ceiling(real) eq -2", [2]),
        ("ceiling(real) eq 0", [4]),
        ("ceiling(real) eq 1", [3]),
        ("round(amount) eq 13", [1]),
        ("round(amount) eq -13", [5]),
        ("floor(amount) eq -1", [2]),
        ("ceiling(amount) eq 1", [7]),
        ("round(number) eq 10", [1]),
        ("floor(single) eq -2", [2]),
        // Date and time parts, in UTC, before 1970 too.
        ("year(when) eq 2009", [1]),
        ("month(when) eq 2", [3]),
        ("day(when) eq 29", [3]),
        ("hour(when) eq 13 and minute(when) eq 20 and second(when) eq 5", [1]),
        ("year(when) eq 1969 and month(when) eq 12 and day(when) eq 31", [2]),
        ("hour(when) eq 23 and minute(when) eq 59 and second(when) eq 59", [2]),
        ("year(when) eq 2010 and second(when) eq 0", [4]),
        ("year(instant) eq 2020 and day(instant) eq 29", [2]),
        ("hour(instant) eq 22", [1]),
        ("hour(duration) eq 13 and minute(duration) eq 20", [1]),
        ("hour(duration) eq 1 and minute(duration) eq 2 and second(duration) eq 3", [2]),
        ("when gt datetime'2009-11-01T13:20:05.249'", [1, 4]),
        ("when eq datetime'2009-11-01T13:20:05.25'", [1]),
        ("when lt datetime'1970-01-01T00:00'", [2]),
        ("when ge datetime'2000-02-29'", [1, 3, 4]),
        ("instant gt datetimeoffset'2009-11-01T23:00:00+01:00'", [2]),
        ("instant eq datetimeoffset'2009-11-01T23:00:00+01:00'", [1]),
        ("duration eq time'PT13H20M'", [1]),
        ("duration lt time'PT1H'", [5]),
        ("duration ge time'00:00'", [1, 2, 5]),
        // Guid and Binary.
        ("uid eq guid'6F9619FF-8B86-D011-B42D-00C04FC964FF'", [1]),
        ("uid lt guid'10000000-0000-0000-0000-000000000000'", [2]),
        ("uid ne null", [1, 2]),
        ("blob eq X'0AFF'", [1]),
        ("blob eq X''", [2]),
        ("blob ne binary'0aff'", [2, 3, 4, 5, 6, 7, 8]),
        // Navigation: a missing related entity reads as null.
        ("Group/label eq 'red'", [1, 3]),
        ("Group/label ne 'red'", [2, 4, 5, 6, 7, 8]),
        ("Group/label gt 'A'", [1, 2, 3, 7]),
        ("not (Group/label gt 'A')", [4, 5, 6, 8]),
        ("Group eq null", [4, 5, 6, 8]),
        ("Group ne null", [1, 2, 3, 7]),
        ("Group/groupID eq 2 and number lt 0", [2, 7]),
        ("Group/label eq 'Blue' or Group/label eq 'red'", [1, 2, 3, 7]),
        ("length(Group/label) eq 4", [2, 7]),
        // isof.
        ("isof(Group, 'Types.Group')", [1, 2, 3, 7]),
        ("isof(name, 'Edm.String')", named),
        ("isof(name, 'Edm.Int32')", []),
        ("isof('Types.Sample')", all),
        ("isof('Types.Group')", []),
        // Request data stays data.
        ("name eq 'x'' OR 1=1 --'", []),
        ("name eq '; DROP TABLE \"Samples\"; --'", []),
        ("name eq 'Alpha'' or ''1''=''1'", []),
        ("substringof('%', name) or startswith(name, '_')", []),
        ("name eq '\u{0}'", []),
        ("concat(name, '\u{0}') eq '\u{0}'", [4, 6]),
    ]

    @Test(arguments: filters)
    func filterSelectsTheSameRowsEverywhere(_ testCase: (filter: String, ids: [Int])) throws {
        let expression = try ExpressionParser.parseFilter(testCase.filter, for: Self.samples)
        let expected = testCase.ids.map { [SQLValue.integer(Int64($0))] }
        let value = try ExpressionFixture.keys(where: expression, on: Self.samples, in: Self.database, asCondition: false)
        let condition = try ExpressionFixture.keys(where: expression, on: Self.samples, in: Self.database, asCondition: true)
        #expect(value.keys == expected, "\(testCase.filter)\n\(value.sql)")
        #expect(condition.keys == expected, "\(testCase.filter)\n\(condition.sql)")
        #expect(Self.reference.filter(expression, on: Self.samples) == expected, "reference: \(testCase.filter)")
        #expect(!ExpressionFixture.quotesOutsideConstants(value.sql), "\(value.sql)")
        #expect(!ExpressionFixture.quotesOutsideConstants(condition.sql), "\(condition.sql)")
    }

    static let orderings: [(orderBy: String, ids: [Int])] = [
        ("amount", [6, 5, 2, 7, 4, 8, 1, 3]),
        ("amount desc", [3, 1, 8, 4, 7, 2, 5, 6]),
        ("name", [6, 4, 3, 7, 1, 5, 2, 8]),
        ("Group/label desc, number", [3, 1, 7, 2, 6, 8, 4, 5]),
        ("flag desc", [1, 3, 2, 5, 4, 6, 7, 8]),
        ("length(name) desc", [8, 3, 5, 1, 7, 2, 4, 6]),
        ("number mod 3, real desc", [6, 7, 2, 3, 8, 5, 1, 4]),
        ("when", [5, 6, 7, 8, 2, 3, 1, 4]),
        ("uid desc", [1, 2, 3, 4, 5, 6, 7, 8]),
        // A comparison is two-valued: false, not null, where number is null.
        ("number gt 0", [2, 3, 6, 7, 1, 4, 5, 8]),
    ]

    @Test(arguments: orderings)
    func orderByMatches(_ testCase: (orderBy: String, ids: [Int])) throws {
        let items = try ExpressionParser.parseOrderBy(testCase.orderBy, for: Self.samples)
        let expected = testCase.ids.map { [SQLValue.integer(Int64($0))] }
        let result = try ExpressionFixture.orderedKeys(items, on: Self.samples, in: Self.database)
        #expect(result.keys == expected, "\(testCase.orderBy)\n\(result.sql)")
        #expect(Self.reference.order(items, on: Self.samples) == expected, "reference: \(testCase.orderBy)")
    }

    @Test func everyLiteralIsAParameter() throws {
        let filter = "name eq 'x'' OR 1=1 --' or number eq 12345 or amount eq 1.5 or when eq datetime'2009-11-01T00:00' or blob eq X'DEAD'"
        let expression = try ExpressionParser.parseFilter(filter, for: Self.samples)
        var context = SQLBuildContext(dialect: SQLiteDialect())
        let sql = ExpressionTranslator.condition(for: expression, in: &context)
        #expect(!sql.contains("12345") && !sql.contains("OR 1=1") && !sql.contains("1.5") && !sql.contains("DEAD"), "\(sql)")
        #expect(sql.filter { $0 == "?" }.count == context.parameters.count)
        #expect(context.parameters == [.text("x' OR 1=1 --"), .integer(12345), .text("1.5"), .integer(1_257_033_600_000), .blob([0xDE, 0xAD])])
    }

    @Test func navigationPathsJoinOncePerPath() throws {
        let expression = try ExpressionParser.parseFilter("Group/label eq 'red' or Group/groupID eq 2 or length(Group/label) gt 1",
                                                          for: Self.samples)
        var context = SQLBuildContext(dialect: SQLiteDialect())
        let sql = ExpressionTranslator.condition(for: expression, in: &context)
        #expect(context.joins.count == 1)
        #expect(context.joins[0].hasPrefix("LEFT JOIN \"Group Table\" AS j1 ON "), "\(context.joins)")
        #expect(sql.contains("j1.\"label\""))
        // Columns are named by their storage names.
        let number = try ExpressionParser.parseFilter("number eq 1", for: Self.samples)
        var numberContext = SQLBuildContext(dialect: SQLiteDialect())
        #expect(ExpressionTranslator.sql(for: number, in: &numberContext).contains("t0.\"number_column\""))
    }

    @Test func keyComparisonsSearchTheIndex() throws {
        let database = try ExpressionFixture.carDealerDatabase()
        for (filter, search) in [("personID eq 5", true), ("personID gt 5 and personID lt 9", true), ("not (personID eq 5)", false)] {
            let expression = try ExpressionParser.parseFilter(filter, for: ExpressionFixture.type("Person"))
            var context = SQLBuildContext(dialect: SQLiteDialect())
            let condition = ExpressionTranslator.condition(for: expression, in: &context)
            let plan = try database.rows("EXPLAIN QUERY PLAN SELECT * FROM \"Person\" AS t0 WHERE " + condition, context.parameters)
            let detail = plan.compactMap { row -> String? in if case .text(let text)? = row.last { return text } else { return nil } }.joined(separator: "; ")
            #expect(detail.contains("SEARCH") == search, "\(filter): \(detail)")
        }
    }

    @Test func plainComparisonsStayIndexFriendly() throws {
        // Non-nullable operands need neither IS nor COALESCE; in a WHERE clause nullable ones skip COALESCE too.
        let car = ExpressionFixture.type("Car")
        var context = SQLBuildContext(dialect: SQLiteDialect())
        let make = try ExpressionParser.parseFilter("make eq 'Ford' and carID gt 3", for: car)
        #expect(ExpressionTranslator.condition(for: make, in: &context) == "((t0.\"make\" = ? COLLATE BINARY) AND (t0.\"carID\" > ?))")
        let maintenance = ExpressionFixture.type("Maintenance")
        var second = SQLBuildContext(dialect: SQLiteDialect())
        let miles = try ExpressionParser.parseFilter("intervalMiles gt 3000", for: maintenance)
        #expect(ExpressionTranslator.condition(for: miles, in: &second) == "(t0.\"intervalMiles\" > ?)")
        #expect(ExpressionTranslator.sql(for: miles, in: &second) == "COALESCE((t0.\"intervalMiles\" > ?), 0)")
    }

    /// The translator takes every engine-specific piece from its dialect. With numbered
    /// placeholders (`$1`, `$2`, as PostgreSQL's), the numbers follow the text, one per
    /// parameter, also where a function repeats an argument (`endswith`).
    @Test func placeholdersComeFromTheDialectInTextOrder() throws {
        let filter = "endswith(name, 'z') and substring(name, 1, 2) eq 'ab' or number eq 7"
        let expression = try ExpressionParser.parseFilter(filter, for: Self.samples)
        var context = SQLBuildContext(dialect: NumberedPlaceholders())
        let sql = ExpressionTranslator.condition(for: expression, in: &context)
        #expect(!sql.contains("?"), "\(sql)")
        var numbers: [Int] = []
        var rest = Substring(sql)
        while let dollar = rest.firstIndex(of: "$") {
            let digits = rest[rest.index(after: dollar)...].prefix { $0.isNumber }
            numbers.append(Int(digits)!)
            rest = rest[digits.endIndex...]
        }
        #expect(numbers == Array(1...context.parameters.count), "\(sql)")
    }
}

/// SQLite's dialect with PostgreSQL-style placeholders.
private struct NumberedPlaceholders: SQLDialect {
    let base = SQLiteDialect()
    func placeholder(_ index: Int) -> String { "$" + String(index + 1) }
    func quote(_ identifier: String) -> String { base.quote(identifier) }
    func limitClause(limit: String?, offset: String?) -> String { base.limitClause(limit: limit, offset: offset) }
    func orderTerm(_ term: String, descending: Bool) -> String { base.orderTerm(term, descending: descending) }
    func keyMembership(columns: [String], alias: String, placeholder: String) -> String {
        base.keyMembership(columns: columns, alias: alias, placeholder: placeholder)
    }
    func keyList(_ keys: [LinkKey]) -> SQLValue { base.keyList(keys) }
    func castToReal(_ sql: String) -> String { base.castToReal(sql) }
    func identityKeyColumn(_ type: PrimitiveType) -> String { base.identityKeyColumn(type) }
    func castToInteger(_ sql: String, within range: ClosedRange<Int64>) -> String { base.castToInteger(sql, within: range) }
    func integerResult(_ sql: String, within range: ClosedRange<Int64>) -> String { base.integerResult(sql, within: range) }
    var binaryCollation: String { base.binaryCollation }
    var trueValue: String { base.trueValue }
    var falseValue: String { base.falseValue }
    func nullSafeEqual(_ left: String, _ right: String, negated: Bool) -> String { base.nullSafeEqual(left, right, negated: negated) }
    func remainder(_ left: String, _ right: String, integral: Bool) -> String { base.remainder(left, right, integral: integral) }
    func function(_ function: ExpressionFunction, argumentCount: Int, argument: (Int) -> String) -> String {
        base.function(function, argumentCount: argumentCount, argument: argument)
    }
    func datePart(_ function: ExpressionFunction, of sql: String, isTime: Bool) -> String { base.datePart(function, of: sql, isTime: isTime) }
    func columnType(_ type: PrimitiveType) -> String { base.columnType(type) }
}
