import EDM
import Testing
@testable import ODataURI

/// Parsing and binding of `$filter` and `$orderby` against the car-dealer model (and a model
/// with every EDM type): structure and precedence, every literal form, every function, and
/// the errors with their positions. The bound tree is checked through its fully parenthesized
/// text, where implicit conversions show as `cast`.
@Suite struct ExpressionParserTests {
    static func filter(_ text: String, on set: String, model: EntityModel = ExpressionFixture.carDealer,
                       limits: ExpressionLimits = ExpressionLimits()) throws(URIError) -> BoundExpression {
        try ExpressionParser.parseFilter(text, for: ExpressionFixture.type(set, in: model), limits: limits)
    }

    static func error(_ text: String, on set: String, model: EntityModel = ExpressionFixture.carDealer,
                      limits: ExpressionLimits = ExpressionLimits()) -> URIError? {
        do {
            _ = try filter(text, on: set, model: model, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    // MARK: Structure and precedence

    static let structures: [(set: String, filter: String, bound: String)] = [
        ("Person", "firstName eq 'Bob'", "(firstName eq 'Bob')"),
        ("Person", "firstName eq 'Bob' and lastName eq 'Samson' or personID gt 3",
         "(((firstName eq 'Bob') and (lastName eq 'Samson')) or (personID gt 3))"),
        ("Person", "personID gt 3 or firstName eq 'Bob' and lastName eq 'Samson'",
         "((personID gt 3) or ((firstName eq 'Bob') and (lastName eq 'Samson')))"),
        ("Person", "(personID gt 3 or personID lt 1) and personID ne 2",
         "(((personID gt 3) or (personID lt 1)) and (personID ne 2))"),
        ("Person", "personID add personID mul 3 eq 8", "((personID add (personID mul 3)) eq 8)"),
        ("Person", "personID sub 2 sub 3 eq 0", "(((personID sub 2) sub 3) eq 0)"),
        ("Person", "personID div 2 mod 3 mul 4 eq 0", "((((personID div 2) mod 3) mul 4) eq 0)"),
        ("Person", "personID mul (personID add 3) eq 10", "((personID mul (personID add 3)) eq 10)"),
        // Relational operators bind tighter than equality (MS-ODATA 2.2.3.6.1.1).
        ("Person", "true eq personID lt 5", "(true eq (personID lt 5))"),
        ("Person", "personID lt 5 eq personID gt 1", "((personID lt 5) eq (personID gt 1))"),
        // Unary operators bind tightest.
        ("Person", "not startswith(firstName, 'B') and true", "((not startswith(firstName, 'B')) and true)"),
        ("Person", "not not (personID eq 1)", "(not (not (personID eq 1)))"),
        ("Person", "-personID lt -5", "((-personID) lt -5)"),
        ("Person", "- 5 eq -personID", "(-5 eq (-personID))"),
        ("Person", "-(personID add 1) eq -2", "((-(personID add 1)) eq -2)"),
        ("Person", "personID sub -5 eq 0", "((personID sub -5) eq 0)"),
        // Whitespace is free around operators and inside calls.
        ("Person", "  ( personID eq 1 )  ", "(personID eq 1)"),
        ("Person", "firstName eq'Bob' and'x'eq firstName", "((firstName eq 'Bob') and ('x' eq firstName))"),
        ("Person", "startswith( firstName ,'B' )", "startswith(firstName, 'B')"),
        // Null comparisons.
        ("Person", "ssn eq null", "(ssn eq null)"),
        ("Person", "null ne ssn", "(null ne ssn)"),
        // Navigation through single-valued navigation properties.
        ("PersonCarMaintenance", "PersonCar/Car/make eq 'Ford'", "(PersonCar/Car/make eq 'Ford')"),
        ("PersonCarMaintenance", "Maintenance/description eq 'Oil change'", "(Maintenance/description eq 'Oil change')"),
        ("PersonCarMaintenance", "PersonCar/Person/ssn ne null and mileage gt 1000",
         "((PersonCar/Person/ssn ne null) and (mileage gt 1000))"),
        ("PersonCar", "Car eq null", "(Car/carID eq null)"),
        ("PersonCar", "null ne Person", "(Person/personID ne null)"),
        // Numeric promotion: operands meet in the wider type; number literals re-read as Decimal.
        ("Person", "personID eq 5L", "(cast(personID, 'Edm.Int64') eq 5L)"),
        ("Person", "personID gt 2.5", "(cast(personID, 'Edm.Double') gt 2.5d)"),
        ("Person", "personID gt 2.5f", "(cast(personID, 'Edm.Single') gt 2.5f)"),
        ("Person", "personID gt 2.5M", "(cast(personID, 'Edm.Decimal') gt 2.5M)"),
        ("Maintenance", "laborHours gt 1.5", "(laborHours gt 1.5M)"),
        ("Maintenance", "laborHours gt 1", "(laborHours gt 1M)"),
        ("Maintenance", "laborHours gt 1.5d", "(laborHours gt 1.5M)"),
        ("Maintenance", "1e1 lt standardPrice", "(10M lt standardPrice)"),
        ("Maintenance", "laborHours add intervalMiles gt 2", "((laborHours add cast(intervalMiles, 'Edm.Decimal')) gt 2M)"),
        ("Maintenance", "laborHours mul cast(intervalMiles, 'Edm.Double') gt 2",
         "((cast(laborHours, 'Edm.Double') mul cast(intervalMiles, 'Edm.Double')) gt 2d)"),
        ("Maintenance", "intervalMiles div 2 eq 1", "((intervalMiles div 2) eq 1)"),
        ("Maintenance", "intervalMiles add null eq null", "((intervalMiles add null) eq null)"),
        // Functions.
        ("Person", "substringof('ob', firstName)", "substringof('ob', firstName)"),
        ("Person", "endswith(lastName, 'son') eq true", "(endswith(lastName, 'son') eq true)"),
        ("Person", "length(firstName) gt 3", "(length(firstName) gt 3)"),
        ("Person", "indexof(firstName, 'o') eq 1", "(indexof(firstName, 'o') eq 1)"),
        ("Person", "replace(firstName, 'o', '0') eq 'B0b'", "(replace(firstName, 'o', '0') eq 'B0b')"),
        ("Person", "substring(firstName, 1) eq 'ob'", "(substring(firstName, 1) eq 'ob')"),
        ("Person", "substring(firstName, 1, 2) eq 'ob'", "(substring(firstName, 1, 2) eq 'ob')"),
        ("Person", "tolower(firstName) eq toupper('bob')", "(tolower(firstName) eq toupper('bob'))"),
        ("Person", "trim(concat(firstName, ' ')) eq 'Bob'", "(trim(concat(firstName, ' ')) eq 'Bob')"),
        ("Person", "concat(firstName, lastName, ssn) eq 'x'", "(concat(firstName, lastName, ssn) eq 'x')"),
        ("Person", "year(createDate) eq 2009 and month(createDate) eq 11 and day(createDate) eq 1",
         "(((year(createDate) eq 2009) and (month(createDate) eq 11)) and (day(createDate) eq 1))"),
        ("Person", "hour(createDate) add minute(createDate) add second(createDate) eq 0",
         "(((hour(createDate) add minute(createDate)) add second(createDate)) eq 0)"),
        ("Maintenance", "round(laborHours) eq 2", "(round(laborHours) eq 2M)"),
        ("Maintenance", "floor(intervalMiles) eq ceiling(1.5)",
         "(floor(cast(intervalMiles, 'Edm.Double')) eq ceiling(1.5d))"),
        ("Person", "isof('edmexampleModel.Person')", "true"),
        ("Person", "isof('edmexampleModel.Car')", "false"),
        ("Person", "isof(ssn, 'Edm.String')", "(ssn ne null)"),
        ("Person", "isof(personID, 'Edm.String')", "false"),
        ("Person", "isof(personID, 'Edm.Int64')", "false"),
        ("PersonCar", "isof(Car, 'edmexampleModel.Car')", "(Car/carID ne null)"),
        ("PersonCar", "isof(Car, 'edmexampleModel.Person')", "false"),
        ("Person", "cast(personID, 'Edm.Double') div 2 gt 1.5", "((cast(personID, 'Edm.Double') div 2d) gt 1.5d)"),
        ("Person", "cast(2.7, 'Edm.Int32') eq personID", "(2 eq personID)"),
        ("Person", "cast(-2.7M, 'Edm.Int32') eq personID", "(-2 eq personID)"),
        ("Person", "cast(firstName, 'Edm.String') eq 'a'", "(firstName eq 'a')"),
        ("Person", "cast(personID, 'Edm.Int32') eq 1", "(personID eq 1)"),
        ("Person", "cast(null, 'Edm.String') eq ssn", "(null eq ssn)"),
        // Integer constants are folded, in their type.
        ("Person", "personID eq 2147483647L add 1", "(cast(personID, 'Edm.Int64') eq 2147483648L)"),
        ("Person", "personID eq (7 sub 9) mul 3 div 2 mod 2", "(personID eq -1)"),
        ("Person", "personID eq -(-2147483647)", "(personID eq 2147483647)"),
        ("Person", "personID eq 1 div 0.0", "(cast(personID, 'Edm.Double') eq (1d div 0d))"),
        // The untyped null is accepted where a Boolean is expected.
        ("Person", "null", "null"),
        ("Person", "not null or true", "((not null) or true)"),
        // Names that are also function names are members when no parenthesis follows.
        ("Car", "model eq 'A4'", "(model eq 'A4')"),
    ]

    @Test(arguments: structures)
    func bindsWithSpecPrecedence(_ testCase: (set: String, filter: String, bound: String)) throws {
        let expression = try Self.filter(testCase.filter, on: testCase.set)
        #expect(expression.description == testCase.bound, "\(testCase.filter)")
        #expect(expression.type == .boolean)
    }

    @Test func everyNodeKnowsItsType() throws {
        let expression = try Self.filter("length(concat(firstName, 'x')) add 1 gt personID", on: "Person")
        guard case .comparison(.greaterThan, let left, let right) = expression else {
            Issue.record("not a comparison: \(expression)")
            return
        }
        #expect(left.type == .int32)
        #expect(right.type == .int32)
        let decimal = try Self.filter("round(laborHours add 1) gt 1", on: "Maintenance")
        guard case .comparison(_, let rounded, _) = decimal else { return }
        #expect(rounded.type == .decimal)
        let single = try Self.filter("-tiny eq 1", on: "Samples", model: ExpressionFixture.allTypes)
        guard case .comparison(_, let negated, _) = single else { return }
        #expect(negated.type == .int32)
    }

    @Test func memberPathsCarryNavigationsAndProperty() throws {
        let expression = try Self.filter("PersonCar/Car/make eq 'Ford'", on: "PersonCarMaintenance")
        guard case .comparison(.equal, .member(let path), _) = expression else {
            Issue.record("unexpected \(expression)")
            return
        }
        #expect(path.navigations.map(\.name) == ["PersonCar", "Car"])
        #expect(path.property.name == "make")
        #expect(path.navigations[1].target.name == "Car")
        #expect(!path.mayBeNull)
        let optional = try Self.filter("Group/label eq 'red'", on: "Samples", model: ExpressionFixture.allTypes)
        guard case .comparison(.equal, .member(let optionalPath), _) = optional else { return }
        #expect(optionalPath.mayBeNull, "a 0..1 navigation may find nothing")
    }

    // MARK: Literals

    static let literals: [(text: String, value: EDMValue, type: PrimitiveType)] = [
        ("true", .boolean(true), .boolean),
        ("false", .boolean(false), .boolean),
        ("123", .integer(123), .int32),
        ("0", .integer(0), .int32),
        ("-123", .integer(-123), .int32),
        ("-2147483648", .integer(-2_147_483_648), .int32),
        ("2147483648", .integer(2_147_483_648), .int64),
        ("123L", .integer(123), .int64),
        ("-9223372036854775808L", .integer(Int64.min), .int64),
        ("9223372036854775808", .decimal("9223372036854775808"), .decimal),
        ("1.5M", .decimal("1.5"), .decimal),
        ("1.50m", .decimal("1.5"), .decimal),
        ("-0.25M", .decimal("-0.25"), .decimal),
        ("12M", .decimal("12"), .decimal),
        ("1.5d", .double(1.5), .double),
        ("1.5D", .double(1.5), .double),
        ("1.5", .double(1.5), .double),
        ("2d", .double(2), .double),
        ("1e3", .double(1000), .double),
        ("1.5E-2", .double(0.015), .double),
        ("-2.5e+2d", .double(-250), .double),
        ("1.5f", .double(1.5), .single),
        // As written, not rounded to 32 bits: Singles are stored as doubles.
        ("0.1F", .double(0.1), .single),
        ("INF", .double(.infinity), .double),
        ("-INF", .double(-.infinity), .double),
        ("INFf", .double(.infinity), .single),
        ("'Bob'", .string("Bob"), .string),
        ("'it''s'", .string("it's"), .string),
        ("''", .string(""), .string),
        ("''''", .string("'"), .string),
        ("'a b/c(d),e'", .string("a b/c(d),e"), .string),
        ("'ünï ß 🚗'", .string("ünï ß 🚗"), .string),
        ("'x'' or ''1''=''1'", .string("x' or '1'='1"), .string),
        ("datetime'2009-11-01T00:00'", .dateTime(1_257_033_600_000), .dateTime),
        ("datetime'2009-11-01T00:00:05'", .dateTime(1_257_033_605_000), .dateTime),
        ("datetime'2009-11-01T00:00:05.123'", .dateTime(1_257_033_605_123), .dateTime),
        ("datetime'2009-11-01T00:00:05.1'", .dateTime(1_257_033_605_100), .dateTime),
        ("datetime'2009-11-01T00:00:05.1230000'", .dateTime(1_257_033_605_123), .dateTime),
        ("datetime'2009-11-01T00:00:00Z'", .dateTime(1_257_033_600_000), .dateTime),
        ("datetime'2009-11-01'", .dateTime(1_257_033_600_000), .dateTime),
        ("DateTime'1969-12-31T23:59:59.999'", .dateTime(-1), .dateTime),
        ("datetimeoffset'2009-11-01T02:00:00+02:00'", .dateTimeOffset(1_257_033_600_000, offsetMinutes: 120), .dateTimeOffset),
        ("datetimeoffset'2009-10-31T19:30:00-04:30'", .dateTimeOffset(1_257_033_600_000, offsetMinutes: -270), .dateTimeOffset),
        ("datetimeoffset'2009-11-01T00:00:00Z'", .dateTimeOffset(1_257_033_600_000, offsetMinutes: 0), .dateTimeOffset),
        ("time'PT13H20M'", .time(48_000_000), .time),
        ("time'PT0S'", .time(0), .time),
        ("time'PT1.5S'", .time(1500), .time),
        ("time'P1DT2H'", .time(93_600_000), .time),
        ("time'P1D'", .time(86_400_000), .time),
        ("time'-PT1M'", .time(-60_000), .time),
        ("time'13:20:00'", .time(48_000_000), .time),
        ("time'13:20'", .time(48_000_000), .time),
        ("time'01:02:03.004'", .time(3_723_004), .time),
        ("guid'6F9619FF-8B86-D011-B42D-00C04FC964FF'", .guid("6f9619ff-8b86-d011-b42d-00c04fc964ff"), .guid),
        ("X'0aFF'", .binary([0x0A, 0xFF]), .binary),
        ("x'00'", .binary([0]), .binary),
        ("binary'CAFE'", .binary([0xCA, 0xFE]), .binary),
        ("X''", .binary([]), .binary),
    ]

    @Test(arguments: literals)
    func readsEveryLiteralForm(_ testCase: (text: String, value: EDMValue, type: PrimitiveType)) throws {
        let expression = try Self.filter("\(testCase.text) eq null", on: "Person")
        guard case .comparison(.equal, .literal(let value, let type), _) = expression else {
            Issue.record("\(testCase.text) bound to \(expression)")
            return
        }
        #expect(value == testCase.value, "\(testCase.text)")
        #expect(type == testCase.type, "\(testCase.text)")
    }

    @Test func readsNull() throws {
        let expression = try Self.filter("null eq null", on: "Person")
        guard case .comparison(.equal, .literal(let value, let type), _) = expression else { return }
        #expect(value == .null)
        #expect(type == nil)
    }

    // MARK: Errors

    /// (set, filter, expected status, message fragment, position)
    static let errors: [(set: String, filter: String, kind: URIError.Kind, fragment: String, position: Int)] = [
        // Type errors.
        ("Person", "firstName gt 5", .badRequest, "'gt' cannot compare Edm.String with Edm.Int32", 10),
        ("Person", "firstName eq createDate", .badRequest, "cannot compare Edm.String with Edm.DateTime", 10),
        ("Person", "personID eq 1 eq 2", .badRequest, "cannot compare Edm.Boolean with Edm.Int32", 14),
        ("Person", "personID add 'a' eq 1", .badRequest, "'add' needs numeric operands", 9),
        ("Person", "firstName add 'a' eq 'b'", .badRequest, "'add' needs numeric operands", 10),
        ("Person", "createDate sub createDate eq 0", .badRequest, "'sub' needs numeric operands", 11),
        ("Person", "-firstName eq 'a'", .badRequest, "'-' needs a numeric operand", 0),
        ("Person", "not personID", .badRequest, "the operand of 'not' must be Edm.Boolean but is Edm.Int32", 4),
        ("Person", "personID and true", .badRequest, "the left operand of 'and' must be Edm.Boolean", 0),
        ("Person", "true or 'x'", .badRequest, "the right operand of 'or' must be Edm.Boolean", 8),
        ("Person", "firstName", .badRequest, "a filter must be an Edm.Boolean expression but this one is Edm.String", 0),
        ("Person", "personID add 1", .badRequest, "this one is Edm.Int32", 9),
        ("Person", "length(personID) eq 1", .badRequest, "argument 1 of length must be Edm.String but is Edm.Int32", 7),
        ("Person", "substring(firstName, 1L) eq 'a'", .badRequest, "argument 2 of substring must be Edm.Int32 but is Edm.Int64", 21),
        ("Person", "substring(firstName, '1') eq 'a'", .badRequest, "argument 2 of substring must be Edm.Int32", 21),
        ("Person", "length(firstName, 1) eq 1", .badRequest, "length takes 1 argument but was given 2", 0),
        ("Person", "substring(firstName) eq 'a'", .badRequest, "substring takes 2 or 3 arguments but was given 1", 0),
        ("Person", "concat(firstName) eq 'a'", .badRequest, "concat takes at least 2 arguments", 0),
        ("Person", "replace(firstName, 'a') eq 'a'", .badRequest, "replace takes 3 arguments", 0),
        ("Person", "trim() eq 'a'", .badRequest, "trim takes 1 argument but was given 0", 0),
        ("Person", "year(firstName) eq 1", .badRequest, "argument 1 of year must be Edm.DateTime or Edm.DateTimeOffset", 5),
        ("Person", "round(firstName) eq 1", .badRequest, "argument 1 of round must be numeric", 6),
        ("Person", "isof(personID, Int32)", .badRequest, "the last argument of isof must be a type name in quotes", 15),
        ("Person", "isof(personID, 'Edm.Bogus')", .badRequest, "'Edm.Bogus' is not an EDM primitive type", 15),
        ("Person", "cast(firstName, 'Edm.Int32') eq 1", .badRequest, "cannot cast Edm.String to Edm.Int32", 0),
        ("Person", "cast('edmexampleModel.Person')", .notImplemented, "cast to the entity type", 0),
        // A type name that names nothing is the client's mistake, not a missing feature.
        ("Person", "cast(personID, 'Foo') eq 1", .badRequest, "'Foo' is neither an EDM primitive type nor an entity type", 15),
        ("Person", "cast('edmexampleModel.Bogus')", .badRequest, "'edmexampleModel.Bogus' is neither", 5),
        ("Person", "isof('Foo')", .badRequest, "'Foo' is neither an EDM primitive type nor an entity type", 5),
        ("Person", "isof(personID, 'Foo')", .badRequest, "'Foo' is neither", 15),
        // Arithmetic the constants decide: in the operands' type (Int32 op Int32 is Int32), never null or wider.
        ("Person", "2147483647 add 1 eq 2147483648L", .badRequest, "2147483647 add 1 overflows Edm.Int32", 11),
        ("Person", "personID eq 2147483647 mul 2", .badRequest, "2147483647 mul 2 overflows Edm.Int32", 23),
        ("Person", "9223372036854775807L add 1L eq 0L", .badRequest, "overflows Edm.Int64", 21),
        ("Person", "-9223372036854775807L sub 2L eq 0L", .badRequest, "overflows Edm.Int64", 22),
        ("Person", "(2147483647 sub 1) add 2 eq personID", .badRequest, "2147483646 add 2 overflows Edm.Int32", 19),
        ("Person", "-(-2147483648) eq personID", .badRequest, "-(-2147483648) overflows Edm.Int32", 0),
        ("Person", "personID div 0 eq 1", .badRequest, "Arithmetic error in $filter at position 9: 'div' by zero", 9),
        ("Person", "personID mod 0L eq 1L", .badRequest, "'mod' by zero", 9),
        ("Person", "1 div (2 sub 2) eq personID", .badRequest, "'div' by zero", 2),
        ("Maintenance", "laborHours div 0 eq 1", .badRequest, "'div' by zero", 11),
        ("Person", "cast(3000000000L, 'Edm.Int32') eq personID", .badRequest, "cast of 3000000000L to Edm.Int32 is out of its range", 0),
        ("Person", "cast(1e30, 'Edm.Int64') eq 1L", .badRequest, "to Edm.Int64 is out of its range", 0),
        ("Person", "cast(9223372036854775807.0, 'Edm.Int64') eq 1L", .badRequest, "to Edm.Int64 is out of its range", 0),
        ("Person", "cast(-129, 'Edm.SByte') eq 1", .badRequest, "to Edm.SByte is out of its range", 0),
        ("Maintenance", "laborHours mod 0.0M eq 1", .badRequest, "'mod' by zero", 11),
        ("PersonCar", "Car eq 1", .badRequest, "'Car' is an entity; it can only be compared with null", 4),
        ("PersonCar", "Car gt null", .badRequest, "can only be compared with null using eq or ne", 4),
        ("PersonCar", "Car", .badRequest, "'Car' is an entity, not a value", 0),
        ("PersonCarMaintenance", "length(PersonCar/Car) eq 1", .badRequest, "'PersonCar/Car' is an entity, not a value", 7),
        ("Person", "PersonCar/createStamp eq null", .badRequest, "'PersonCar' leads to many edmexampleModel.PersonCar entities", 0),
        ("Person", "firstName/length eq 1", .badRequest, "'firstName' is a property of edmexampleModel.Person, not a navigation property", 10),
        // Unknown names.
        ("Person", "bogus eq 1", .badRequest, "edmexampleModel.Person has no property or navigation property named 'bogus'", 0),
        ("PersonCarMaintenance", "PersonCar/Car/bogus eq 1", .badRequest, "edmexampleModel.Car has no property or navigation property named 'bogus'", 14),
        ("Person", "FirstName eq 'Bob'", .badRequest, "named 'FirstName'", 0),
        ("Person", "bogus(firstName) eq 1", .badRequest, "there is no function named 'bogus'", 0),
        ("Person", "StartsWith(firstName, 'B')", .badRequest, "there is no function named 'StartsWith'", 0),
        // Syntax errors.
        ("Person", "firstName eq 'a' and", .badRequest, "expected an expression but found the end of the expression", 20),
        ("Person", "(firstName eq 'a'", .badRequest, "expected ')' to close the '(' at position 0 but found the end", 17),
        ("Person", "firstName eq 'a')", .badRequest, "expected an operator or the end of the expression but found ')'", 16),
        ("Person", "firstName eq 'a' lastName", .badRequest, "but found 'lastName'", 17),
        ("Person", "firstName EQ 'a'", .badRequest, "but found 'EQ'", 10),
        ("Person", "firstName == 'a'", .badRequest, "unexpected character '='", 10),
        ("Person", "firstName eq 'a' #", .badRequest, "unexpected character '#'", 17),
        ("Person", "firstName eq 'a';", .badRequest, "unexpected character ';'", 16),
        ("Person", "firstName eq \"a\"", .badRequest, "unexpected character '\"'", 13),
        ("Person", "eq 'a'", .badRequest, "expected an operator or the end of the expression but found the literal", 3),
        ("Person", "startswith(firstName 'B')", .badRequest, "expected ',' or ')' to close the '(' at position 10", 21),
        ("Person", "startswith(firstName,)", .badRequest, "expected an expression but found ')'", 21),
        ("PersonCarMaintenance", "PersonCar/", .badRequest, "expected a property name after '/' but found the end", 10),
        ("Person", "firstName eq 'abc", .badRequest, "the quoted text that starts here is not closed", 13),
        ("Person", "firstName eq 'a' and ()", .badRequest, "expected an expression but found ')'", 22),
        ("Person", "firstName eq 'a'\u{0}", .badRequest, "unexpected character U+0", 16),
        // Invalid literals.
        ("Person", "personID eq 12abc", .badRequest, "a number cannot be followed by 'a'", 12),
        ("Person", "personID eq 1.5L", .badRequest, "an Edm.Int64 literal cannot have a fraction", 12),
        ("Person", "personID eq 9223372036854775808L", .badRequest, "out of the range of Edm.Int64", 12),
        ("Person", "personID eq 1e999", .badRequest, "out of the range of Edm.Double", 12),
        ("Person", "personID eq NaN", .badRequest, "NaN is not supported", 12),
        ("Person", "createDate eq datetime'2009-13-01T00:00'", .badRequest, "is not a valid date and time", 14),
        ("Person", "createDate eq datetime'2009-02-29T00:00'", .badRequest, "is not a valid date and time", 14),
        ("Person", "createDate eq datetime'2009-11-01 00:00'", .badRequest, "is not of the form yyyy-mm-ddThh:mm[:ss[.fffffff]]", 14),
        ("Person", "createDate eq datetime'2009-11-01T00:00:00.0001'", .badRequest, "more precise than the milliseconds", 14),
        ("Person", "createDate eq datetime'2009-11-01T00:00:00+01:00'", .badRequest, "use datetimeoffset", 14),
        ("Person", "createDate eq datetimeoffset'2009-11-01T00:00:00+15:00'", .badRequest, "invalid offset", 14),
        ("Person", "createDate eq time'P1Y'", .badRequest, "years or months", 14),
        ("Person", "createDate eq time'PT'", .badRequest, "is not a duration", 14),
        ("Person", "createDate eq time'25:00'", .badRequest, "is not a duration", 14),
        ("Person", "firstName eq guid'123'", .badRequest, "is not of the form dddddddd-dddd-dddd-dddd-dddddddddddd", 13),
        ("Person", "firstName eq X'abc'", .badRequest, "even number of hexadecimal digits", 13),
        ("Person", "firstName eq X'zz'", .badRequest, "only hexadecimal digits", 13),
        ("Person", "firstName eq foo'bar'", .badRequest, "unknown literal prefix 'foo'", 13),
        // Whole-option problems.
        ("Person", "", .badRequest, "$filter is empty", -1),
        ("Person", "   ", .badRequest, "$filter is empty", -1),
    ]

    @Test(arguments: errors)
    func reportsProblemAndPosition(_ testCase: (set: String, filter: String, kind: URIError.Kind, fragment: String, position: Int)) {
        guard let error = Self.error(testCase.filter, on: testCase.set) else {
            Issue.record("\(testCase.filter) was accepted")
            return
        }
        #expect(error.kind == testCase.kind, "\(testCase.filter): \(error.message)")
        #expect(error.message.contains(testCase.fragment), "\(testCase.filter): \(error.message)")
        if testCase.position >= 0 {
            #expect(error.message.contains("in $filter at position \(testCase.position):"), "\(testCase.filter): \(error.message)")
        }
    }

    @Test func typeErrorsAreBadRequestsThatSayWhere() {
        let error = Self.error("firstName gt 5", on: "Person")
        #expect(error == URIError(.badRequest, "Type error in $filter at position 10: 'gt' cannot compare Edm.String with Edm.Int32"))
    }

    // MARK: Limits

    @Test func boundsTheNumberOfNodes() throws {
        let limits = ExpressionLimits(maxNodes: 7)
        // 3 + 3 + 1 nodes: at the bound.
        _ = try Self.filter("personID eq 1 and personID eq 2", on: "Person", limits: limits)
        let error = Self.error("personID eq 1 and personID eq 2 and personID eq 3", on: "Person", limits: limits)
        #expect(error?.kind == .badRequest)
        #expect(error?.message.contains("more than the limit of 7 nodes (maxNodes") == true, "\(String(describing: error))")
        // A long flat chain under the default bound is refused without deep recursion.
        let chain = Array(repeating: "personID eq 1", count: 5000).joined(separator: " or ")
        #expect(Self.error(chain, on: "Person")?.message.contains("maxNodes") == true)
    }

    @Test func boundsTheNestingDepth() throws {
        let limits = ExpressionLimits(maxNodes: 100, maxDepth: 4)
        _ = try Self.filter("((personID eq 1))", on: "Person", limits: limits)
        let error = Self.error("((((personID eq 1))))", on: "Person", limits: limits)
        #expect(error?.message.contains("deeper than the limit of 4 levels (maxDepth") == true, "\(String(describing: error))")
        // Far deeper than any stack allows: an error, not a crash.
        let deep = String(repeating: "(", count: 200_000) + "personID eq 1" + String(repeating: ")", count: 200_000)
        #expect(Self.error(deep, on: "Person")?.message.contains("maxDepth") == true)
        let negations = String(repeating: "not ", count: 100_000) + "true"
        #expect(Self.error(negations, on: "Person")?.kind == .badRequest)
        let minus = String(repeating: "- ", count: 100_000) + "1 eq 1"
        #expect(Self.error(minus, on: "Person")?.kind == .badRequest)
    }

    // MARK: $orderby

    @Test func parsesOrderByKeys() throws {
        let person = ExpressionFixture.type("Person")
        let items = try ExpressionParser.parseOrderBy("lastName, firstName desc, personID asc", for: person)
        #expect(items.map(\.expression.description) == ["lastName", "firstName", "personID"])
        #expect(items.map(\.descending) == [false, true, false])

        let pcm = ExpressionFixture.type("PersonCarMaintenance")
        let nested = try ExpressionParser.parseOrderBy("PersonCar/Car/make desc,cost", for: pcm)
        #expect(nested.map(\.expression.description) == ["PersonCar/Car/make", "cost"])
        #expect(nested.map(\.descending) == [true, false])

        let computed = try ExpressionParser.parseOrderBy("length(firstName) sub 1 desc, year(createDate)", for: person)
        #expect(computed.map(\.expression.description) == ["(length(firstName) sub 1)", "year(createDate)"])
        #expect(computed[0].expression.type == .int32)
    }

    @Test(arguments: [
        ("Person", "", "$orderby is empty", -1),
        ("Person", "firstName asc desc", "expected 'asc', 'desc', ',' or the end of the expression but found 'desc'", 14),
        ("Person", "firstName,", "expected an expression but found the end", 10),
        ("Person", "bogus", "has no property or navigation property named 'bogus'", 0),
        ("PersonCar", "Car desc", "'Car' is an entity, not a value", 0),
        ("Person", "firstName gt 1", "cannot compare Edm.String with Edm.Int32", 10),
        ("Samples", "blob", "values of type Edm.Binary cannot be ordered", 0),
    ])
    func reportsOrderByErrors(_ set: String, _ text: String, _ fragment: String, _ position: Int) {
        let model = set == "Samples" ? ExpressionFixture.allTypes : ExpressionFixture.carDealer
        do {
            _ = try ExpressionParser.parseOrderBy(text, for: ExpressionFixture.type(set, in: model))
            Issue.record("\(text) was accepted")
        } catch {
            #expect(error.kind == .badRequest)
            #expect(error.message.contains(fragment), "\(error.message)")
            if position >= 0 { #expect(error.message.contains("in $orderby at position \(position):"), "\(error.message)") }
        }
    }

    // MARK: Every EDM type

    static let allTypeFilters: [(filter: String, bound: String)] = [
        ("flag", "flag"),
        ("flag eq true and not flag", "((flag eq true) and (not flag))"),
        ("tiny add small eq 4", "((cast(tiny, 'Edm.Int32') add cast(small, 'Edm.Int32')) eq 4)"),
        ("tiny eq small", "(cast(tiny, 'Edm.Int16') eq small)"),
        ("big gt number", "(big gt cast(number, 'Edm.Int64'))"),
        ("single lt real", "(cast(single, 'Edm.Double') lt real)"),
        ("amount gt real", "(cast(amount, 'Edm.Double') gt real)"),
        ("when lt datetime'2009-11-01T00:00'", "(when lt datetime'2009-11-01T00:00:00')"),
        ("instant ge datetimeoffset'2009-11-01T00:00:00Z'", "(instant ge datetimeoffset'2009-11-01T00:00:00Z')"),
        ("duration eq time'PT13H20M'", "(duration eq time'PT48000S')"),
        ("hour(duration) eq 13", "(hour(duration) eq 13)"),
        ("uid eq guid'6F9619FF-8B86-D011-B42D-00C04FC964FF'", "(uid eq guid'6f9619ff-8b86-d011-b42d-00c04fc964ff')"),
        ("uid gt guid'00000000-0000-0000-0000-000000000000'", "(uid gt guid'00000000-0000-0000-0000-000000000000')"),
        ("blob eq X'0AFF'", "(blob eq X'0AFF')"),
        ("blob ne binary'00'", "(blob ne X'00')"),
        ("Group/label eq 'red'", "(Group/label eq 'red')"),
        ("number eq 1", "(number eq 1)"),
    ]

    @Test(arguments: allTypeFilters)
    func bindsEveryEDMType(_ testCase: (filter: String, bound: String)) throws {
        let expression = try Self.filter(testCase.filter, on: "Samples", model: ExpressionFixture.allTypes)
        #expect(expression.description == testCase.bound)
    }

    @Test(arguments: [
        ("blob lt X'00'", "'lt' cannot order values of type Edm.Binary", 5),
        ("when eq instant", "cannot compare Edm.DateTime with Edm.DateTimeOffset", 5),
        ("uid eq 'abc'", "cannot compare Edm.Guid with Edm.String", 4),
        ("when eq '2009-11-01'", "cannot compare Edm.DateTime with Edm.String", 5),
        ("day(duration) eq 1", "argument 1 of day must be Edm.DateTime or Edm.DateTimeOffset but is Edm.Time", 4),
        ("flag add 1 eq 2", "'add' needs numeric operands", 5),
        ("cast(flag, 'Edm.Int32') eq 1", "cannot cast Edm.Boolean to Edm.Int32", 0),
    ])
    func rejectsIllTypedOperandsOfEveryType(_ text: String, _ fragment: String, _ position: Int) {
        let error = Self.error(text, on: "Samples", model: ExpressionFixture.allTypes)
        #expect(error?.message.contains(fragment) == true, "\(String(describing: error))")
        #expect(error?.message.contains("at position \(position):") == true, "\(String(describing: error))")
    }
}
