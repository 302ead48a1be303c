import EDM

/// Integer arithmetic in an EDM integral result type, as the binder folds constants: exact or
/// nothing. Division truncates toward zero and the remainder has the dividend's sign (as .NET
/// and SQLite compute them).
enum IntegerArithmetic {
    /// The result of `a op b` in `type`; nil when it does not fit the type or divides by zero.
    static func result(_ op: ArithmeticOperator, _ a: Int64, _ b: Int64, type: PrimitiveType) -> Int64? {
        let (value, overflow): (Int64, Bool)
        switch op {
        case .add: (value, overflow) = a.addingReportingOverflow(b)
        case .subtract: (value, overflow) = a.subtractingReportingOverflow(b)
        case .multiply: (value, overflow) = a.multipliedReportingOverflow(by: b)
        case .divide:
            guard b != 0 else { return nil }
            (value, overflow) = a.dividedReportingOverflow(by: b)
        case .modulo:
            guard b != 0 else { return nil }
            // Int64.min % -1 is 0, though computing it traps.
            (value, overflow) = (b == -1 ? 0 : a % b, false)
        }
        guard !overflow, fits(value, in: type) else { return nil }
        return value
    }

    /// Whether `value` is in the range of the integral `type` (any value for other types).
    static func fits(_ value: Int64, in type: PrimitiveType) -> Bool {
        type.integerRange?.contains(value) ?? true
    }

    /// A number truncated toward zero to an Integer of `type`, as `cast` converts: nil when
    /// `type` is not integral or `value` no number; `.some(nil)` when the result is outside the
    /// type's range (or the number is not finite).
    static func truncated(_ value: EDMValue, to type: PrimitiveType) -> Int64?? {
        guard let range = type.integerRange else { return nil }
        let number: Int64?
        switch value {
        case .integer(let integer): number = integer
        case .double(let double): number = truncated(double, in: range)
        case .decimal(let text): number = Double(text).flatMap { truncated($0, in: range) }
        default: return nil
        }
        guard let number, range.contains(number) else { return .some(nil) }
        return number
    }

    private static func truncated(_ value: Double, in range: ClosedRange<Int64>) -> Int64? {
        let whole = value.rounded(.towardZero)
        // The upper bound as a Double may round up (Int64.max to 2^63): compare below its successor.
        guard whole >= Double(range.lowerBound), whole < Double(range.upperBound) + 1 else { return nil }
        return Int64(whole)
    }
}

extension EDMValue {
    /// True for a numeric zero (of any sign).
    var isZero: Bool {
        switch self {
        case .integer(let value): return value == 0
        case .double(let value): return value == 0
        case .decimal(let text): return Double(text) == 0
        default: return false
        }
    }
}
