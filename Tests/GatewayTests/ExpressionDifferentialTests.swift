import EDM
import Foundation
import ODataStore
import PostgresStore
import SQLiteStore
@testable import ODataURI
import Testing

/// The differential test: many random well-typed filters and orderings over the car-dealer
/// seed data and over the all-types table, translated with each engine's dialect and run there,
/// and run by the reference evaluator over the same rows loaded into memory. SQLite's answers
/// must be the reference's; PostgreSQL's (the same rows copied from the SQLite fixture into
/// tables made from the schema, the same filters from the same seeds) must be SQLite's, row for
/// row and in order.
@Suite(.serialized) struct ExpressionDifferentialTests {
    @Test(arguments: TestGateway.engines) func randomFiltersAgreeOnTheSeedData(engine: TestGateway.Engine) throws {
        let fixture = try DifferentialFixture(engine: engine, model: ExpressionFixture.carDealer,
                                              sqlite: try ExpressionFixture.carDealerDatabase())
        for (index, set) in ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"].enumerated() {
            try compareFilters(on: ExpressionFixture.type(set), in: fixture, count: 600, seed: UInt64(100 + index))
        }
    }

    @Test(arguments: TestGateway.engines) func randomFiltersAgreeOnEveryType(engine: TestGateway.Engine) throws {
        let model = ExpressionFixture.allTypes
        let fixture = try DifferentialFixture(engine: engine, model: model, sqlite: try ExpressionFixture.allTypesDatabase())
        try compareFilters(on: ExpressionFixture.type("Samples", in: model), in: fixture, count: 3000, seed: 7)
    }

    @Test(arguments: TestGateway.engines) func randomOrderingsAgree(engine: TestGateway.Engine) throws {
        let dealer = try DifferentialFixture(engine: engine, model: ExpressionFixture.carDealer,
                                             sqlite: try ExpressionFixture.carDealerDatabase())
        for (index, set) in ["Person", "Car", "PersonCarMaintenance", "Maintenance"].enumerated() {
            try compareOrderings(on: ExpressionFixture.type(set), in: dealer, count: 60, seed: UInt64(200 + index))
        }
        let model = ExpressionFixture.allTypes
        let types = try DifferentialFixture(engine: engine, model: model, sqlite: try ExpressionFixture.allTypesDatabase())
        try compareOrderings(on: ExpressionFixture.type("Samples", in: model), in: types, count: 200, seed: 300)
    }

    /// The rows under one differential test: the SQLite fixture database and the reference
    /// evaluator over its rows, and for PostgreSQL a database of its own with the same rows.
    struct DifferentialFixture {
        let model: EntityModel
        let sqlite: Database
        let reference: ReferenceEvaluator
        let postgres: PostgresConnection?
        /// Dropped with the fixture.
        private let postgresDatabase: PostgresTestDatabase?

        init(engine: TestGateway.Engine, model: EntityModel, sqlite: Database) throws {
            self.model = model
            self.sqlite = sqlite
            reference = try ReferenceEvaluator(model: model, database: sqlite)
            switch engine {
            case .sqlite:
                postgresDatabase = nil
                postgres = nil
            case .postgresql:
                let database = try PostgresTestDatabase()
                let connection = try database.connect()
                try ExpressionFixture.copy(model, from: sqlite, to: connection)
                postgresDatabase = database
                postgres = connection
            }
        }
    }

    /// Each generated filter: SQLite's keys (in key order) against the reference's and, on
    /// PostgreSQL, PostgreSQL's against SQLite's, through both the value and the condition
    /// translation. PostgreSQL leaves out only the known divergences (`divergesAcrossEngines`,
    /// `mayOverflowADouble`), by what the expression holds, never by its answer.
    private func compareFilters(on type: EntityType, in fixture: DifferentialFixture, count: Int, seed: UInt64) throws {
        var generator = ExpressionGenerator(type: type, model: fixture.model, reference: fixture.reference, seed: seed)
        var matched = 0
        var failures = 0
        var compared = 0
        var skipped = 0
        var caseMappings = 0
        for _ in 0..<count {
            let text = generator.boolean(depth: 3)
            let expression: BoundExpression
            do {
                expression = try ExpressionParser.parseFilter(text, for: type, limits: ExpressionLimits(maxNodes: 1000))
            } catch where Self.isConstantArithmeticError(error, text) {
                continue
            } catch {
                Issue.record("generated filter rejected: \(text)\n\(error)")
                failures += 1
                continue
            }
            if fixture.postgres != nil && Self.divergesAcrossEngines(expression) {
                skipped += 1
                continue
            }
            let expected = fixture.reference.filter(expression, on: type)
            for asCondition in [false, true] {
                let result = try ExpressionFixture.keys(where: expression, on: type, in: fixture.sqlite, asCondition: asCondition)
                if result.keys != expected {
                    failures += 1
                    Issue.record("\(type.name) $filter=\(text)\nbound: \(expression)\nSQL: \(result.sql)\nSQLite: \(result.keys.count) rows \(result.keys.prefix(10))\nreference: \(expected.count) rows \(expected.prefix(10))")
                }
                guard let postgres = fixture.postgres else { continue }
                do {
                    let answer = try ExpressionFixture.keys(where: expression, on: type, in: postgres, asCondition: asCondition)
                    compared += 1
                    if answer.keys != result.keys {
                        let difference: Comment = "\(type.name) $filter=\(text)\nPostgreSQL: \(answer.sql)\nparameters: \(answer.parameters)\n\(answer.keys.count) rows \(answer.keys.prefix(10))\nSQLite: \(result.keys.count) rows \(result.keys.prefix(10))"
                        if Self.mapsCase(expression) {
                            caseMappings += 1
                            withKnownIssue("PostgreSQL maps case one character to one, SQLite fully (ß → SS)") { Issue.record(difference) }
                        } else {
                            failures += 1
                            Issue.record(difference)
                        }
                    }
                } catch let failure as ExpressionFixture.PostgresFailure where failure.isOutOfRange && Self.mayOverflowADouble(expression) {
                    skipped += 1
                } catch {
                    failures += 1
                    Issue.record("\(type.name) $filter=\(text)\n\(error)")
                }
            }
            if !expected.isEmpty && expected.count < fixture.reference.rows(of: type).count { matched += 1 }
            if failures > 5 { return }
        }
        // The generator must produce selective filters, or the comparison proves little.
        #expect(matched > count / 8, "only \(matched) of \(count) filters on \(type.name) selected some but not all rows")
        if fixture.postgres != nil {
            #expect(compared > count, "only \(compared) comparisons for \(count) filters on \(type.name)")
            #expect(skipped < count / 20, "\(skipped) of \(count) filters on \(type.name) left out as known divergences")
            #expect(caseMappings < count / 100, "\(caseMappings) of \(count) filters on \(type.name) differ by their case mapping")
        }
    }

    /// The generator combines constants freely, so some of its expressions divide a constant by
    /// zero or overflow: the binder refuses those (400), and they are no comparison. Only such
    /// refusals are skipped: the error must say so, and name the operator of a folded pair.
    static func isConstantArithmeticError(_ error: any Error, _ text: String) -> Bool {
        guard let error = error as? URIError, error.kind == .badRequest, error.message.contains("Arithmetic error") else { return false }
        return ["div", "mod", "add", "sub", "mul", "-"].contains { text.contains($0) }
    }

    /// The remainder of floating operands: PostgreSQL computes it exactly in NUMERIC, SQLite as
    /// C's fmod of the operands' doubles (they differ when the divisor has no exact binary form:
    /// `-12.5 mod 0.005` is 0 exactly, and not quite 0 in doubles). Decimal arithmetic,
    /// remainders included, is exact on both and compared.
    static func divergesAcrossEngines(_ expression: BoundExpression) -> Bool {
        contains(expression) { isFloatingArithmetic($0, [.modulo]) }
    }

    /// A floating product or quotient, which may go beyond the range of a double: SQLite gives
    /// an infinity, PostgreSQL an error (22003), which the gateway answers as a failed request.
    static func mayOverflowADouble(_ expression: BoundExpression) -> Bool {
        contains(expression) { isFloatingArithmetic($0, [.multiply, .divide]) }
    }

    /// A `tolower` or `toupper`: PostgreSQL's `lower`/`upper` map one character to one (ß stays
    /// ß, ﬁ stays ﬁ), as .NET's invariant mappings do; SQLite's `edm_upper`/`edm_lower` and the
    /// reference map fully, as Swift does (ß → SS, ﬁ → FI). Where that shows, the answers differ:
    /// a known issue of the engines, reported as one rather than hidden.
    static func mapsCase(_ expression: BoundExpression) -> Bool {
        contains(expression) {
            guard case .call(let function, _, _) = $0 else { return false }
            return function == .toLower || function == .toUpper
        }
    }

    private static func isFloatingArithmetic(_ node: BoundExpression, _ operators: [ArithmeticOperator]) -> Bool {
        guard case .arithmetic(let op, _, _, let type) = node else { return false }
        return operators.contains(op) && type != .decimal && !(type?.isIntegral ?? true)
    }

    /// Whether the expression or any expression within it satisfies `matches`.
    static func contains(_ expression: BoundExpression, where matches: (BoundExpression) -> Bool) -> Bool {
        if matches(expression) { return true }
        switch expression {
        case .literal, .member: return false
        case .convert(let inner, _), .negate(let inner, _), .not(let inner): return contains(inner, where: matches)
        case .arithmetic(_, let left, let right, _), .comparison(_, let left, let right), .and(let left, let right), .or(let left, let right):
            return contains(left, where: matches) || contains(right, where: matches)
        case .call(_, let arguments, _): return arguments.contains { contains($0, where: matches) }
        }
    }

    /// Each generated ordering: SQLite's order of every row against the reference's and, on
    /// PostgreSQL, PostgreSQL's against SQLite's.
    private func compareOrderings(on type: EntityType, in fixture: DifferentialFixture, count: Int, seed: UInt64) throws {
        var generator = ExpressionGenerator(type: type, model: fixture.model, reference: fixture.reference, seed: seed)
        var failures = 0
        for _ in 0..<count {
            let text = generator.orderBy()
            let items: [OrderByItem]
            do {
                items = try ExpressionParser.parseOrderBy(text, for: type, limits: ExpressionLimits(maxNodes: 1000))
            } catch where Self.isConstantArithmeticError(error, text) {
                continue
            } catch {
                Issue.record("generated $orderby rejected: \(text)\n\(error)")
                continue
            }
            let result = try ExpressionFixture.orderedKeys(items, on: type, in: fixture.sqlite)
            let expected = fixture.reference.order(items, on: type)
            if result.keys != expected {
                failures += 1
                Issue.record("\(type.name) $orderby=\(text)\nSQL: \(result.sql)\n\(Self.firstDifference(result.keys, "SQLite", expected, "reference"))")
            }
            if let postgres = fixture.postgres {
                do {
                    let answer = try ExpressionFixture.orderedKeys(items, on: type, in: postgres)
                    if answer.keys != result.keys {
                        failures += 1
                        Issue.record("\(type.name) $orderby=\(text)\nPostgreSQL: \(answer.sql)\n\(Self.firstDifference(answer.keys, "PostgreSQL", result.keys, "SQLite"))")
                    }
                } catch {
                    failures += 1
                    Issue.record("\(type.name) $orderby=\(text)\n\(error)")
                }
            }
            if failures > 5 { return }
        }
    }

    /// `first difference at N: A [..] B [..]`, the next few keys of each from there.
    static func firstDifference(_ keys: [[SQLValue]], _ name: String, _ expected: [[SQLValue]], _ expectedName: String) -> String {
        let common = min(keys.count, expected.count)
        let first = (0..<common).first { keys[$0] != expected[$0] } ?? common
        return "first difference at \(first): \(name) \(keys[first...].prefix(5)) \(expectedName) \(expected[first...].prefix(5))"
    }
}

/// Deterministic pseudo-random numbers (SplitMix64), so that a failure can be replayed.
struct SeededRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Writes random well-typed OData expressions over an entity type: its properties and those
/// reached through single-valued navigation properties, literals drawn from the stored values
/// (so that comparisons hit) and from edge cases, with every operator and function.
struct ExpressionGenerator {
    enum Kind: CaseIterable {
        case boolean, integral, decimal, floating, string, dateTime, dateTimeOffset, time, guid, binary

        init(_ type: PrimitiveType) {
            switch type {
            case .boolean: self = .boolean
            case .byte, .sByte, .int16, .int32, .int64: self = .integral
            case .decimal: self = .decimal
            case .single, .double: self = .floating
            case .string: self = .string
            case .dateTime: self = .dateTime
            case .dateTimeOffset: self = .dateTimeOffset
            case .time: self = .time
            case .guid: self = .guid
            case .binary: self = .binary
            }
        }

        var isNumeric: Bool { self == .integral || self == .decimal || self == .floating }
    }

    private var random: SeededRandom
    private var members: [Kind: [String]] = [:]
    private var memberTypes: [String: PrimitiveType] = [:]
    private var entityPaths: [String] = []
    private var literals: [Kind: [String]] = [:]
    private let typeName: String

    init(type: EntityType, model: EntityModel, reference: ReferenceEvaluator, seed: UInt64) {
        random = SeededRandom(seed: seed)
        typeName = type.qualifiedName
        collectMembers(of: type, prefix: "", depth: 0)
        for entityType in model.entityTypes {
            let rows = reference.rows(of: entityType)
            for property in entityType.properties {
                var seen = Set<String>()
                for row in rows.prefix(200) {
                    let value = EDMValue(row.values[property.columnIndex], as: property.type)
                    guard !value.isNull else { continue }
                    seen.insert(BoundExpression.literalText(value, property.type))
                    if seen.count >= 12 { break }
                }
                literals[Kind(property.type), default: []] += seen.sorted()
            }
        }
        literals[.integral, default: []] += ["0", "1", "-1", "2", "3", "7", "10", "-10", "100", "2147483647", "5L"]
        literals[.decimal, default: []] += ["0M", "1.5M", "-2.25M", "12.5", "100M", "0.005M"]
        literals[.floating, default: []] += ["0d", "2.5", "-0.5d", "1e3", "0.49", "1.5f", "-3.5d"]
        literals[.string, default: []] += ["''", "'a'", "'A'", "'e'", "'o'", "' '", "'Ford'", "'O''Brien'", "'ß'", "'%'", "'zz'",
                                           "'Ångström'", "'ÅNGSTRÖM'", "'é'", "'É'", "'İ'", "'ǅ'", "'Σς'", "'ﬁ'"]
        literals[.dateTime, default: []] += ["datetime'2009-11-01T00:00'", "datetime'1970-01-01T00:00:00.001'", "datetime'2010-06-15T12:30:45.5'"]
        literals[.dateTimeOffset, default: []] += ["datetimeoffset'2009-11-01T23:00:00+01:00'", "datetimeoffset'2020-01-01T00:00:00Z'"]
        literals[.time, default: []] += ["time'PT13H20M'", "time'PT0S'", "time'01:02:03'"]
        literals[.guid, default: []] += ["guid'00000000-0000-0000-0000-000000000001'", "guid'7FFFFFFF-0000-0000-0000-000000000000'"]
        literals[.binary, default: []] += ["X''", "X'0AFF'", "binary'00'"]
        literals[.boolean, default: []] += ["true", "false"]
    }

    private mutating func collectMembers(of type: EntityType, prefix: String, depth: Int) {
        for property in type.properties {
            members[Kind(property.type), default: []].append(prefix + property.name)
            memberTypes[prefix + property.name] = property.type
        }
        guard depth < 2 else { return }
        for navigation in type.navigationProperties where !navigation.isCollection {
            entityPaths.append(prefix + navigation.name)
            collectMembers(of: navigation.target, prefix: prefix + navigation.name + "/", depth: depth + 1)
        }
    }

    private mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }

    private mutating func pick<T>(_ items: [T]) -> T { items[Int.random(in: 0..<items.count, using: &random)] }

    private mutating func leaf(_ kind: Kind) -> String {
        if let paths = members[kind], !paths.isEmpty, chance(60) { return pick(paths) }
        if chance(3) { return "null" }
        return pick(literals[kind] ?? ["null"])
    }

    /// Kinds that have members to compare.
    private var comparableKinds: [Kind] {
        Kind.allCases.filter { $0 != .boolean && !(members[$0] ?? []).isEmpty }
    }

    // MARK: Boolean

    mutating func boolean(depth: Int) -> String {
        if depth <= 0 { return comparison(depth: 0) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<35: return comparison(depth: depth - 1)
        case 35..<50: return "(\(boolean(depth: depth - 1)) and \(boolean(depth: depth - 1)))"
        case 50..<62: return "(\(boolean(depth: depth - 1)) or \(boolean(depth: depth - 1)))"
        case 62..<70: return "not (\(boolean(depth: depth - 1)))"
        case 70..<82:
            let function = pick(["startswith", "endswith", "substringof"])
            return "\(function)(\(string(depth: depth - 1)), \(string(depth: depth - 1)))"
        case 82..<88:
            if !entityPaths.isEmpty, chance(50) { return "(\(pick(entityPaths)) \(pick(["eq", "ne"])) null)" }
            let kind = pick(comparableKinds)
            return "(\(leaf(kind)) \(pick(["eq", "ne"])) null)"
        case 88..<92:
            if let flags = members[.boolean], !flags.isEmpty { return pick(flags) }
            return pick(["true", "false"])
        case 92..<96:
            let kind = pick(comparableKinds)
            let path = pick(members[kind]!)
            return "isof(\(path), '\(chance(70) ? memberTypes[path]!.name : "Edm.Int64")')"
        default:
            return "(\(boolean(depth: depth - 1)) \(pick(["eq", "ne"])) \(boolean(depth: depth - 1)))"
        }
    }

    private mutating func comparison(depth: Int) -> String {
        var kind = pick(comparableKinds)
        var right = kind
        if kind.isNumeric { right = pick(comparableKinds.filter(\.isNumeric)) }
        let operators = kind == .binary ? ["eq", "ne"] : ["eq", "ne", "lt", "le", "gt", "ge"]
        let left = value(kind, depth: depth)
        if chance(50) { swap(&kind, &right) }
        return "(\(left) \(pick(operators)) \(value(right, depth: depth)))"
    }

    private mutating func value(_ kind: Kind, depth: Int) -> String {
        switch kind {
        case .integral: return integral(depth: depth)
        case .decimal: return decimal(depth: depth)
        case .floating: return floating(depth: depth)
        case .string: return string(depth: depth)
        case .boolean: return boolean(depth: depth)
        default: return leaf(kind)
        }
    }

    // MARK: Numbers

    private mutating func integral(depth: Int) -> String {
        if depth <= 0 || chance(40) { return leaf(.integral) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30: return "(\(integral(depth: depth - 1)) \(pick(["add", "sub", "div", "mod"])) \(integral(depth: depth - 1)))"
        // Products only with a small factor, so that no value overflows 64 bits.
        case 30..<40: return "(\(leaf(.integral)) mul \(pick(["2", "-3", "10", "0"])))"
        case 40..<50: return "-(\(integral(depth: depth - 1)))"
        case 50..<62: return "length(\(string(depth: depth - 1)))"
        case 62..<72: return "indexof(\(string(depth: depth - 1)), \(string(depth: depth - 1)))"
        case 72..<88:
            if chance(50), let times = members[.time], !times.isEmpty {
                return "\(pick(["hour", "minute", "second"]))(\(pick(times)))"
            }
            let dates = (members[.dateTime] ?? []) + (members[.dateTimeOffset] ?? [])
            guard !dates.isEmpty else { return leaf(.integral) }
            return "\(pick(["year", "month", "day", "hour", "minute", "second"]))(\(pick(dates)))"
        default:
            let source = chance(50) ? decimal(depth: depth - 1) : floating(depth: depth - 1)
            return "cast(\(source), '\(pick(["Edm.Int32", "Edm.Int64"]))')"
        }
    }

    private mutating func decimal(depth: Int) -> String {
        if depth <= 0 || chance(40) || (members[.decimal] ?? []).isEmpty { return leaf(.decimal) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40: return "(\(decimal(depth: depth - 1)) \(pick(["add", "sub", "mul", "div", "mod"])) \(chance(50) ? decimal(depth: depth - 1) : integral(depth: depth - 1)))"
        case 40..<55: return "-(\(decimal(depth: depth - 1)))"
        case 55..<85: return "\(pick(["round", "floor", "ceiling"]))(\(decimal(depth: depth - 1)))"
        default: return "cast(\(integral(depth: depth - 1)), 'Edm.Decimal')"
        }
    }

    private mutating func floating(depth: Int) -> String {
        if depth <= 0 || chance(40) { return (members[.floating] ?? []).isEmpty && chance(50) ? "cast(\(leaf(.integral)), 'Edm.Double')" : leaf(.floating) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<40:
            let other = pick([Kind.integral, .decimal, .floating])
            return "(\(floating(depth: depth - 1)) \(pick(["add", "sub", "mul", "div", "mod"])) \(value(other, depth: depth - 1)))"
        case 40..<50: return "-(\(floating(depth: depth - 1)))"
        case 50..<80: return "\(pick(["round", "floor", "ceiling"]))(\(chance(50) ? floating(depth: depth - 1) : integral(depth: depth - 1)))"
        default: return "cast(\(integral(depth: depth - 1)), 'Edm.Double')"
        }
    }

    // MARK: Strings

    private mutating func string(depth: Int) -> String {
        if depth <= 0 || chance(45) { return leaf(.string) }
        switch Int.random(in: 0..<100, using: &random) {
        case 0..<30: return "\(pick(["tolower", "toupper", "trim"]))(\(string(depth: depth - 1)))"
        case 30..<50: return "substring(\(string(depth: depth - 1)), \(pick(["0", "1", "2", "-1", "5", "40"])))"
        case 50..<65: return "substring(\(string(depth: depth - 1)), \(pick(["0", "1", "3"])), \(chance(80) ? pick(["0", "1", "2", "4", "-1"]) : "cast(\(integral(depth: depth - 1)), 'Edm.Int32')"))"
        case 65..<85: return "concat(\(string(depth: depth - 1)), \(string(depth: depth - 1)))"
        default: return "replace(\(string(depth: depth - 1)), \(pick(literals[.string]!)), \(pick(["''", "'x'", "'ab'"])))"
        }
    }

    // MARK: $orderby

    mutating func orderBy() -> String {
        var keys: [String] = []
        for _ in 0..<Int.random(in: 1...3, using: &random) {
            let kind = pick(comparableKinds.filter { $0 != .binary } + [.boolean])
            let expression = chance(50) ? leaf(kind) : value(kind, depth: 2)
            keys.append(expression + pick(["", " asc", " desc"]))
        }
        return keys.joined(separator: ", ")
    }
}
