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
        switch type {
        case .byte: return (0...255).contains(value)
        case .sByte: return (-128...127).contains(value)
        case .int16: return (Int64(Int16.min)...Int64(Int16.max)).contains(value)
        case .int32: return (Int64(Int32.min)...Int64(Int32.max)).contains(value)
        default: return true
        }
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
