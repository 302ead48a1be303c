import EDM
import Foundation
import ODataStore
import SQLiteStore
import ODataURI

/// Evaluates bound `$filter`/`$orderby` expressions over rows loaded from SQLite into memory,
/// following the semantics documented on `BoundExpression`, written independently of the SQL
/// translation. The differential tests check that SQLite's answers agree with it.
///
/// Where OData leaves room, it pins down the choices the gateway made: integer arithmetic in
/// its result type (Int32 or Int64) with a result outside that type null, as is division or
/// modulo by zero,
/// strings are sequences of Unicode scalars compared by their UTF-8 bytes, `tolower`/`toupper`
/// map each scalar by Unicode's simple (one to one) case mapping, as .NET's invariant mappings
/// do, and date parts are read in UTC.
struct ReferenceEvaluator {
    /// A value during evaluation. Decimals are exact (Foundation's `Decimal`): a quotient is
    /// rounded half away from zero to 28 places, a product or sum beyond 38 digits to 38.
    enum Value: Equatable, CustomStringConvertible {
        case null
        case bool(Bool)
        case int(Int64)
        case real(Double)
        case dec(Decimal)
        case text(String)
        case bytes([UInt8])

        var description: String {
            switch self {
            case .null: return "null"
            case .bool(let b): return String(b)
            case .int(let i): return String(i)
            case .real(let d): return String(d)
            case .dec(let d): return d.description + "M"
            case .text(let s): return "'\(s)'"
            case .bytes(let b): return "\(b)"
            }
        }
    }

    struct Row {
        let type: EntityType
        let values: [SQLValue]

        var key: [SQLValue] { type.keyProperties.map { values[$0.columnIndex] } }
    }

    private var rowsByType: [ObjectIdentifier: [Row]] = [:]
    private var rowsByKey: [ObjectIdentifier: [[SQLValue]: Row]] = [:]

    /// Loads every row of every entity type of `model`.
    init(model: EntityModel, database: Database) throws {
        for type in model.entityTypes {
            let columns = type.columnNames.map(SQLiteDialect().quote).joined(separator: ", ")
            let rows = try database.rows("SELECT \(columns) FROM \(SQLiteDialect().quote(type.tableName))").map { Row(type: type, values: $0) }
            rowsByType[ObjectIdentifier(type)] = rows
            rowsByKey[ObjectIdentifier(type)] = Dictionary(uniqueKeysWithValues: rows.map { ($0.key, $0) })
        }
    }

    func rows(of type: EntityType) -> [Row] { rowsByType[ObjectIdentifier(type)] ?? [] }

    /// Keys of the rows where `filter` is true, in key order.
    func filter(_ filter: BoundExpression, on type: EntityType) -> [[SQLValue]] {
        rows(of: type).filter { evaluate(filter, on: $0) == .bool(true) }.map(\.key).sorted(by: Self.keyOrder)
    }

    /// Keys of all rows in `$orderby` order, ties broken by the key.
    func order(_ items: [OrderByItem], on type: EntityType) -> [[SQLValue]] {
        let keyed = rows(of: type).map { row in (row.key, items.map { evaluate($0.expression, on: row) }) }
        return keyed.sorted { a, b in
            for (index, item) in items.enumerated() {
                let c = Self.compareForOrdering(a.1[index], b.1[index])
                if c != 0 { return item.descending ? c > 0 : c < 0 }
            }
            return Self.keyOrder(a.0, b.0)
        }.map(\.0)
    }

    static func keyOrder(_ a: [SQLValue], _ b: [SQLValue]) -> Bool {
        for (x, y) in zip(a, b) where x != y {
            if case .integer(let i) = x, case .integer(let j) = y { return i < j }
            return "\(x)" < "\(y)"
        }
        return false
    }

    // MARK: Evaluation

    func evaluate(_ expression: BoundExpression, on row: Row) -> Value {
        switch expression {
        case .literal(let value, _):
            return Self.value(value)
        case .member(let path):
            var current: Row? = row
            for navigation in path.navigations { current = current.flatMap { follow(navigation, from: $0) } }
            guard let current else { return .null }
            return Self.value(EDMValue(current.values[path.property.columnIndex], as: path.property.type))
        case .convert(let inner, let target):
            return Self.convert(evaluate(inner, on: row), to: target)
        case .negate(let inner, let type):
            switch evaluate(inner, on: row) {
            case .int(let i): return Self.integral(i == .min ? nil : -i, type)
            case .real(let d): return .real(-d)
            case .dec(let d): return .dec(-d)
            default: return .null
            }
        case .arithmetic(let op, let left, let right, let type):
            return Self.arithmetic(op, evaluate(left, on: row), evaluate(right, on: row), type: type)
        case .comparison(let op, let left, let right):
            return .bool(Self.compare(op, evaluate(left, on: row), evaluate(right, on: row)))
        case .not(let inner):
            if case .bool(let b) = evaluate(inner, on: row) { return .bool(!b) }
            return .null
        case .and(let left, let right):
            let l = evaluate(left, on: row), r = evaluate(right, on: row)
            if l == .bool(false) || r == .bool(false) { return .bool(false) }
            if l == .null || r == .null { return .null }
            return .bool(true)
        case .or(let left, let right):
            let l = evaluate(left, on: row), r = evaluate(right, on: row)
            if l == .bool(true) || r == .bool(true) { return .bool(true) }
            if l == .null || r == .null { return .null }
            return .bool(false)
        case .call(let function, let arguments, _):
            return Self.call(function, arguments.map { evaluate($0, on: row) }, argumentTypes: arguments.map(\.type))
        }
    }

    /// The entity a single-valued navigation leads to, or nil.
    private func follow(_ navigation: NavigationProperty, from row: Row) -> Row? {
        let fk = navigation.foreignKey
        if navigation.targetHoldsForeignKey {
            return rows(of: navigation.target).first { target in fk.columnIndexes.map { target.values[$0] } == row.key }
        }
        let key = fk.columnIndexes.map { row.values[$0] }
        guard !key.contains(.null) else { return nil }
        return rowsByKey[ObjectIdentifier(navigation.target)]?[key]
    }

    static func value(_ value: EDMValue) -> Value {
        switch value {
        case .null: return .null
        case .boolean(let b): return .bool(b)
        case .integer(let i): return .int(i)
        case .double(let d): return .real(d)
        case .decimal(let text): return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")).map(Value.dec) ?? .null
        case .string(let s): return .text(s)
        case .binary(let b): return .bytes(b)
        case .dateTime(let ms), .dateTimeOffset(let ms, _), .time(let ms): return .int(ms)
        case .guid(let g): return .text(g)
        }
    }

    private static func double(_ value: Value) -> Double? {
        switch value {
        case .int(let i): return Double(i)
        case .real(let d): return d
        case .dec(let d): return Double(d.description)
        case .bool(let b): return b ? 1 : 0
        default: return nil
        }
    }

    /// Integral targets truncate toward zero; a value outside the target's range is null.
    private static func convert(_ value: Value, to target: PrimitiveType) -> Value {
        let range: ClosedRange<Int64>?
        switch target {
        case .byte: range = 0...255
        case .sByte: range = -128...127
        case .int16: range = -32768...32767
        case .int32: range = -2_147_483_648...2_147_483_647
        case .int64: range = Int64.min...Int64.max
        default: range = nil
        }
        switch (value, range) {
        case (.dec(let d), let range?):
            let whole = truncated(d)
            guard whole >= Decimal(range.lowerBound), whole <= Decimal(range.upperBound) else { return .null }
            return .int(Int64(whole.description)!)
        case (.int(let i), nil) where target == .decimal: return .dec(Decimal(i))
        case (.real(let d), nil) where target == .decimal: return d.isFinite ? .dec(Decimal(string: String(d))!) : .null
        case (.dec(let d), nil) where target == .double || target == .single: return .real(Double(d.description)!)
        case (.real(let d), let range?):
            // 2^63 itself is out of Int64's range; every other bound is exact as a Double.
            let whole = d.rounded(.towardZero)
            guard whole >= Double(range.lowerBound), whole < Double(range.upperBound) + 1 else { return .null }
            return .int(Int64(whole))
        case (.int(let i), let range?): return range.contains(i) ? .int(i) : .null
        case (.int(let i), nil): return .real(Double(i))
        default: return value
        }
    }

    /// An Integer result in its type: null when there is none (overflow) or it is out of range.
    private static func integral(_ result: Int64?, _ type: PrimitiveType?) -> Value {
        guard let result else { return .null }
        if type == .int32 && !(Int64(Int32.min)...Int64(Int32.max)).contains(result) { return .null }
        return .int(result)
    }

    private static func arithmetic(_ op: ArithmeticOperator, _ left: Value, _ right: Value, type: PrimitiveType?) -> Value {
        if type?.isIntegral ?? true, case .int(let a) = left, case .int(let b) = right {
            let result: (Int64, Bool)
            switch op {
            case .add: result = a.addingReportingOverflow(b)
            case .subtract: result = a.subtractingReportingOverflow(b)
            case .multiply: result = a.multipliedReportingOverflow(by: b)
            case .divide:
                if b == 0 { return .null }
                result = a.dividedReportingOverflow(by: b)
            case .modulo:
                if b == 0 { return .null }
                return .int(b == -1 ? 0 : a % b)
            }
            return integral(result.1 ? nil : result.0, type)
        }
        if type == .decimal {
            guard case .dec(let x) = left, case .dec(let y) = right else { return .null }
            return decimal(op, x, y)
        }
        guard let x = double(left), let y = double(right) else { return .null }
        return real(op, x, y)
    }

    private static func decimal(_ op: ArithmeticOperator, _ x: Decimal, _ y: Decimal) -> Value {
        let result: Decimal
        switch op {
        case .add: result = x + y
        case .subtract: result = x - y
        case .multiply: result = x * y
        case .divide:
            if y.isZero { return .null }
            result = rounded(x / y, scale: 28)
        case .modulo:
            if y.isZero { return .null }
            result = x - y * truncated(x / y)
        }
        return result.isNaN ? .null : .dec(result)
    }

    private static func rounded(_ value: Decimal, scale: Int) -> Decimal {
        var (input, result) = (value, Decimal())
        NSDecimalRound(&result, &input, scale, .plain)
        return result
    }

    /// Toward zero.
    private static func truncated(_ value: Decimal) -> Decimal {
        var (magnitude, result) = (value < 0 ? -value : value, Decimal())
        NSDecimalRound(&result, &magnitude, 0, .down)
        return value < 0 ? -result : result
    }

    private static func real(_ op: ArithmeticOperator, _ x: Double, _ y: Double) -> Value {
        let result: Double
        switch op {
        case .add: result = x + y
        case .subtract: result = x - y
        case .multiply: result = x * y
        case .divide:
            if y == 0 { return .null }
            result = x / y
        case .modulo:
            if y == 0 { return .null }
            result = fmod(x, y)
        }
        return result.isNaN ? .null : .real(result)
    }

    /// Two-valued: eq/ne treat null as a value; the ordering operators are false with a null.
    private static func compare(_ op: ComparisonOperator, _ left: Value, _ right: Value) -> Bool {
        if left == .null || right == .null {
            switch op {
            case .equal: return left == right
            case .notEqual: return left != right
            default: return false
            }
        }
        let c = order(left, right)
        switch op {
        case .equal: return c == 0
        case .notEqual: return c != 0
        case .lessThan: return c < 0
        case .lessThanOrEqual: return c <= 0
        case .greaterThan: return c > 0
        case .greaterThanOrEqual: return c >= 0
        }
    }

    /// SQLite's order of non-null values of one type: numbers by value, text by UTF-8 bytes.
    private static func order(_ left: Value, _ right: Value) -> Int {
        switch (left, right) {
        case (.int(let a), .int(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.dec(let a), .dec(let b)): return a < b ? -1 : (a > b ? 1 : 0)
        case (.text(let a), .text(let b)): return bytes(Array(a.utf8), Array(b.utf8))
        case (.bytes(let a), .bytes(let b)): return bytes(a, b)
        default:
            let a = double(left) ?? 0, b = double(right) ?? 0
            return a < b ? -1 : (a > b ? 1 : 0)
        }
    }

    private static func bytes(_ a: [UInt8], _ b: [UInt8]) -> Int {
        for (x, y) in zip(a, b) where x != y { return x < y ? -1 : 1 }
        return a.count < b.count ? -1 : (a.count > b.count ? 1 : 0)
    }

    /// `$orderby` order: null before everything, then by value.
    static func compareForOrdering(_ left: Value, _ right: Value) -> Int {
        switch (left == .null, right == .null) {
        case (true, true): return 0
        case (true, false): return -1
        case (false, true): return 1
        default: return order(left, right)
        }
    }

    // MARK: Functions

    /// What .NET's Char.IsWhiteSpace accepts: the characters `trim` removes.
    static let whitespace: Set<UInt32> = [9, 10, 11, 12, 13, 32, 133, 160, 5760, 8192, 8193, 8194, 8195, 8196, 8197, 8198,
                                          8199, 8200, 8201, 8202, 8232, 8233, 8239, 8287, 12288]

    private static func call(_ function: ExpressionFunction, _ arguments: [Value], argumentTypes: [PrimitiveType?]) -> Value {
        if function == .concat {
            var text = ""
            for argument in arguments { if case .text(let s) = argument { text += s } }
            return .text(text)
        }
        if function == .replace {
            // SQLite's replace(): null string or pattern is null; an empty pattern leaves the string.
            guard case .text(let s) = arguments[0], case .text(let find) = arguments[1] else { return .null }
            if find.isEmpty { return .text(s) }
            guard case .text(let replacement) = arguments[2] else { return .null }
            return .text(replaceAll(s, find, replacement))
        }
        guard !arguments.contains(.null) else { return .null }
        switch function {
        case .substringOf:
            return .bool(indexOf(scalars(arguments[1]), scalars(arguments[0])) != nil)
        case .startsWith:
            return .bool(scalars(arguments[0]).starts(with: scalars(arguments[1])))
        case .endsWith:
            return .bool(scalars(arguments[0]).reversed().starts(with: scalars(arguments[1]).reversed()))
        case .length:
            return .int(Int64(scalars(arguments[0]).count))
        case .indexOf:
            return .int(Int64(indexOf(scalars(arguments[0]), scalars(arguments[1])) ?? -1))
        case .substring:
            let s = scalars(arguments[0])
            guard case .int(let i) = arguments[1] else { return .null }
            let start = Int(min(max(i, 0), Int64(s.count)))
            var end = s.count
            if arguments.count == 3 {
                guard case .int(let n) = arguments[2] else { return .null }
                end = Int(min(Int64(start) + max(n, 0), Int64(s.count)))
            }
            return .text(text(Array(s[start..<end])))
        case .toLower:
            return .text(text(scalars(arguments[0]).map { Self.simpleCaseMapping($0, lower: true) }))
        case .toUpper:
            return .text(text(scalars(arguments[0]).map { Self.simpleCaseMapping($0, lower: false) }))
        case .trim:
            var s = scalars(arguments[0])[...]
            while let first = s.first, whitespace.contains(first.value) { s = s.dropFirst() }
            while let last = s.last, whitespace.contains(last.value) { s = s.dropLast() }
            return .text(text(Array(s)))
        case .year, .month, .day, .hour, .minute, .second:
            guard case .int(let ms) = arguments[0] else { return .null }
            if argumentTypes[0] == .time {
                switch function {
                case .hour: return .int((ms / 3_600_000) % 24)
                case .minute: return .int((ms / 60_000) % 60)
                default: return .int((ms / 1000) % 60)
                }
            }
            let civil = CivilTime(millisecondsSinceEpoch: ms)
            let part: Int
            switch function {
            case .year: part = civil.year
            case .month: part = civil.month
            case .day: part = civil.day
            case .hour: part = civil.hour
            case .minute: part = civil.minute
            default: part = civil.second
            }
            return .int(Int64(part))
        case .round:
            if case .dec(let d) = arguments[0] { return .dec(rounded(d, scale: 0)) }
            return double(arguments[0]).map { .real($0.rounded(.toNearestOrAwayFromZero)) } ?? .null
        case .floor:
            if case .dec(let d) = arguments[0] { let t = truncated(d); return .dec(t > d ? t - 1 : t) }
            return double(arguments[0]).map { .real($0.rounded(.down)) } ?? .null
        case .ceiling:
            if case .dec(let d) = arguments[0] { let t = truncated(d); return .dec(t < d ? t + 1 : t) }
            return double(arguments[0]).map { .real($0.rounded(.up)) } ?? .null
        case .concat, .replace:
            return .null
        }
    }

    private static func scalars(_ value: Value) -> [Unicode.Scalar] {
        if case .text(let s) = value { return Array(s.unicodeScalars) }
        return []
    }

    private static func text(_ scalars: [Unicode.Scalar]) -> String {
        var view = String.UnicodeScalarView()
        view.append(contentsOf: scalars)
        return String(view)
    }

    /// The first position of `needle` in `haystack` (0 for an empty needle).
    private static func indexOf(_ haystack: [Unicode.Scalar], _ needle: [Unicode.Scalar]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        for start in 0...(haystack.count - needle.count) where Array(haystack[start..<start + needle.count]) == needle {
            return start
        }
        return nil
    }

    private static func replaceAll(_ s: String, _ find: String, _ replacement: String) -> String {
        let source = Array(s.unicodeScalars), pattern = Array(find.unicodeScalars)
        var result: [Unicode.Scalar] = []
        var index = 0
        while index < source.count {
            if index + pattern.count <= source.count, Array(source[index..<index + pattern.count]) == pattern {
                result.append(contentsOf: replacement.unicodeScalars)
                index += pattern.count
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return text(result)
    }
}

extension ReferenceEvaluator {
    /// Unicode's simple case mapping (UnicodeData.txt), from Swift's full mapping: where that is
    /// one scalar the two agree; where it is several (SpecialCasing.txt: ß, ﬁ, ŉ, ǰ, ...) the
    /// simple mapping keeps the scalar, except for the few listed with a simple mapping of their
    /// own (İ lowers to i; Greek letters with a subscript iota upper to their title forms).
    static func simpleCaseMapping(_ scalar: Unicode.Scalar, lower: Bool) -> Unicode.Scalar {
        let full = lower ? scalar.properties.lowercaseMapping : scalar.properties.uppercaseMapping
        if full.unicodeScalars.count == 1 { return full.unicodeScalars.first! }
        let value = scalar.value
        if lower {
            return value == 0x130 ? "i" : scalar
        }
        switch value {
        case 0x1F80...0x1F87, 0x1F90...0x1F97, 0x1FA0...0x1FA7: return Unicode.Scalar(value + 8)!
        case 0x1FB3: return "\u{1FBC}"
        case 0x1FC3: return "\u{1FCC}"
        case 0x1FF3: return "\u{1FFC}"
        default: return scalar
        }
    }
}
