import CSQLite
import Foundation
import ODataStore

// A binding file: its functions and collation are registered with SQLite's C API, which hands
// them C pointers to their arguments; that, and Foundation's C-style Decimal arithmetic, is the
// unsafe code here.

/// Exact Edm.Decimal on SQLite, which has no decimal type: values are kept as their decimal
/// text (as stored), compared and ordered by the `EDM_DECIMAL` collation and computed by these
/// functions, all with Foundation's `Decimal` (38 significant digits).
///
/// - `edm_dec(x)`: x as decimal text: an INTEGER exactly, a REAL by its shortest text, TEXT as is.
/// - `edm_dec_add`, `edm_dec_sub`, `edm_dec_mul`: exact while the result has at most 38
///   significant digits (beyond, rounded to 38); NULL when an operand is NULL or no decimal,
///   or the result is out of Decimal's range.
/// - `edm_dec_div`: the quotient rounded half away from zero to `divisionScale` (28) decimal
///   places, .NET's largest decimal scale; NULL for a zero divisor.
/// - `edm_dec_mod`: the remainder of the quotient truncated toward zero (sign of the dividend).
/// - `edm_dec_round` (half away from zero), `edm_dec_floor`, `edm_dec_ceiling`: to an integer.
/// - `edm_dec_neg`.
/// - `edm_dec_sum(x)`: the aggregate sum of the non-null values, NULL over none (or when a
///   value is no decimal or the sum leaves Decimal's range).
public enum DecimalFunctions {
    public static let convert = "edm_dec"
    public static let add = "edm_dec_add"
    public static let subtract = "edm_dec_sub"
    public static let multiply = "edm_dec_mul"
    public static let divide = "edm_dec_div"
    public static let modulo = "edm_dec_mod"
    public static let round = "edm_dec_round"
    public static let floor = "edm_dec_floor"
    public static let ceiling = "edm_dec_ceiling"
    public static let negate = "edm_dec_neg"
    public static let sum = "edm_dec_sum"
    /// The collation that compares decimal texts by value.
    public static let collation = "EDM_DECIMAL"
    /// The decimal places a quotient is rounded to.
    public static let divisionScale: Int16 = 28

    private enum Operation: Int, CaseIterable {
        case convert = 1, add, subtract, multiply, divide, modulo, round, floor, ceiling, negate

        var name: String {
            switch self {
            case .convert: DecimalFunctions.convert
            case .add: DecimalFunctions.add
            case .subtract: DecimalFunctions.subtract
            case .multiply: DecimalFunctions.multiply
            case .divide: DecimalFunctions.divide
            case .modulo: DecimalFunctions.modulo
            case .round: DecimalFunctions.round
            case .floor: DecimalFunctions.floor
            case .ceiling: DecimalFunctions.ceiling
            case .negate: DecimalFunctions.negate
            }
        }

        var arity: Int32 {
            switch self {
            case .add, .subtract, .multiply, .divide, .modulo: 2
            default: 1
            }
        }
    }

    static func register(on handle: OpaquePointer) -> Int32 {
        let flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS
        for operation in Operation.allCases {
            let rc = sqlite3_create_function_v2(handle, operation.name, operation.arity, flags,
                                                UnsafeMutableRawPointer(bitPattern: operation.rawValue), { context, count, arguments in
                guard let operation = Operation(rawValue: Int(bitPattern: sqlite3_user_data(context))), let arguments else { return }
                var operands: [Decimal] = []
                for index in 0..<Int(count) {
                    guard let argument = arguments[index], let value = DecimalFunctions.decimal(of: argument) else {
                        sqlite3_result_null(context)
                        return
                    }
                    operands.append(value)
                }
                guard let result = DecimalFunctions.compute(operation, operands) else {
                    sqlite3_result_null(context)
                    return
                }
                var text = result.description.utf8CString
                text.withUnsafeMutableBufferPointer { buffer in
                    sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), csqlite_transient())
                }
            }, nil, nil, nil)
            guard rc == SQLITE_OK else { return rc }
        }
        let summing = sqlite3_create_function_v2(handle, sum, 1, flags, nil, nil, { context, _, arguments in
            guard let raw = sqlite3_aggregate_context(context, Int32(MemoryLayout<Sum>.stride)) else {
                sqlite3_result_error_nomem(context)
                return
            }
            // Zeroed by SQLite on first use: not started, not failed.
            let sum = raw.assumingMemoryBound(to: Sum.self)
            guard let argument = arguments?[0], sqlite3_value_type(argument) != SQLITE_NULL, !sum.pointee.failed else { return }
            guard let value = DecimalFunctions.decimal(of: argument) else {
                sum.pointee.failed = true
                return
            }
            if !sum.pointee.started {
                sum.pointee = Sum(started: true, failed: false, total: value)
            } else if let total = DecimalFunctions.checked(sum.pointee.total, value, NSDecimalAdd) {
                sum.pointee.total = total
            } else {
                sum.pointee.failed = true
            }
        }, { context in
            guard let raw = sqlite3_aggregate_context(context, 0) else {
                sqlite3_result_null(context)
                return
            }
            let sum = raw.assumingMemoryBound(to: Sum.self).pointee
            guard sum.started, !sum.failed else {
                sqlite3_result_null(context)
                return
            }
            var text = sum.total.description.utf8CString
            text.withUnsafeMutableBufferPointer { buffer in
                sqlite3_result_text(context, buffer.baseAddress, Int32(buffer.count - 1), csqlite_transient())
            }
        }, nil)
        guard summing == SQLITE_OK else { return summing }
        return sqlite3_create_collation_v2(handle, collation, SQLITE_UTF8, nil, { _, leftCount, left, rightCount, right in
            let a = String(decoding: UnsafeRawBufferPointer(start: left, count: Int(leftCount)), as: UTF8.self)
            let b = String(decoding: UnsafeRawBufferPointer(start: right, count: Int(rightCount)), as: UTF8.self)
            guard let x = DecimalFunctions.parse(a), let y = DecimalFunctions.parse(b) else {
                // Not decimals (no such value is stored): ordered by their bytes, as BINARY.
                return a.utf8.lexicographicallyPrecedes(b.utf8) ? -1 : (a == b ? 0 : 1)
            }
            return x < y ? -1 : (x == y ? 0 : 1)
        }, nil)
    }

    /// The state of `edm_dec_sum`, in SQLite's zeroed aggregate context: plain bits only.
    private struct Sum {
        var started: Bool
        var failed: Bool
        var total: Decimal
    }

    /// A decimal from its text: digits with an optional sign, point and exponent, nothing else.
    public static func parse(_ text: String) -> Decimal? {
        guard let first = text.utf8.first, first != UInt8(ascii: " "), text.utf8.last != UInt8(ascii: " "),
              text.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || "+-.eE".utf8.contains($0) }),
              let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { return nil }
        return value
    }

    private static func decimal(of argument: OpaquePointer) -> Decimal? {
        switch sqlite3_value_type(argument) {
        case SQLITE_INTEGER: return Decimal(sqlite3_value_int64(argument))
        case SQLITE_FLOAT:
            let number = sqlite3_value_double(argument)
            return number.isFinite ? parse(String(number)) : nil
        case SQLITE_TEXT:
            guard let text = sqlite3_value_text(argument) else { return nil }
            return parse(String(decoding: UnsafeBufferPointer(start: text, count: Int(sqlite3_value_bytes(argument))), as: UTF8.self))
        default: return nil
        }
    }

    private static func compute(_ operation: Operation, _ operands: [Decimal]) -> Decimal? {
        switch operation {
        case .convert: return operands[0]
        case .add: return checked(operands[0], operands[1], NSDecimalAdd)
        case .subtract: return checked(operands[0], operands[1], NSDecimalSubtract)
        case .multiply: return checked(operands[0], operands[1], NSDecimalMultiply)
        case .divide: return quotient(operands[0], operands[1]).map { rounded($0, scale: divisionScale, .plain) }
        case .modulo:
            guard let q = quotient(operands[0], operands[1]) else { return nil }
            return checked(operands[1], truncated(q), NSDecimalMultiply).flatMap { checked(operands[0], $0, NSDecimalSubtract) }
        case .round: return rounded(operands[0], scale: 0, .plain)
        case .floor:
            let t = truncated(operands[0])
            return t > operands[0] ? t - 1 : t
        case .ceiling:
            let t = truncated(operands[0])
            return t < operands[0] ? t + 1 : t
        case .negate: return -operands[0]
        }
    }

    private typealias Operator = (UnsafeMutablePointer<Decimal>, UnsafePointer<Decimal>, UnsafePointer<Decimal>, NSDecimalNumber.RoundingMode) -> NSDecimalNumber.CalculationError

    private static func checked(_ a: Decimal, _ b: Decimal, _ operation: Operator) -> Decimal? {
        var (x, y, result) = (a, b, Decimal())
        let error = operation(&result, &x, &y, .plain)
        return error == .noError || error == .lossOfPrecision ? result : nil
    }

    private static func quotient(_ a: Decimal, _ b: Decimal) -> Decimal? {
        guard !b.isZero else { return nil }
        return checked(a, b, NSDecimalDivide)
    }

    private static func rounded(_ value: Decimal, scale: Int16, _ mode: NSDecimalNumber.RoundingMode) -> Decimal {
        var (input, result) = (value, Decimal())
        NSDecimalRound(&result, &input, Int(scale), mode)
        return result
    }

    /// The value truncated toward zero, when that lies within `range`.
    static func integer(truncating value: Decimal, within range: ClosedRange<Int64>) -> Int64? {
        let whole = truncated(value)
        guard whole >= Decimal(range.lowerBound), whole <= Decimal(range.upperBound) else { return nil }
        return Int64(whole.description)
    }

    /// Toward zero: the magnitude rounded down, signed again.
    private static func truncated(_ value: Decimal) -> Decimal {
        let magnitude = rounded(value < 0 ? -value : value, scale: 0, .down)
        return value < 0 ? -magnitude : magnitude
    }
}
