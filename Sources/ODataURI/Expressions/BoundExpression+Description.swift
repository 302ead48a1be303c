import EDM

// The bound tree written back as OData text, fully parenthesized, with implicit conversions
// shown as `cast`: what the parser understood, for logs and tests.
extension BoundExpression: CustomStringConvertible {
    public var description: String {
        switch self {
        case .literal(let value, let type):
            return Self.literalText(value, type)
        case .member(let path):
            return path.text
        case .convert(let inner, let type):
            return "cast(\(inner), '\(type.name)')"
        case .negate(let inner, _):
            return "(-\(inner))"
        case .arithmetic(let op, let left, let right, _):
            return "(\(left) \(op.rawValue) \(right))"
        case .comparison(let op, let left, let right):
            return "(\(left) \(op.rawValue) \(right))"
        case .not(let inner):
            return "(not \(inner))"
        case .and(let left, let right):
            return "(\(left) and \(right))"
        case .or(let left, let right):
            return "(\(left) or \(right))"
        case .call(let function, let arguments, _):
            return function.name + "(" + arguments.map(\.description).joined(separator: ", ") + ")"
        }
    }

    static func literalText(_ value: EDMValue, _ type: PrimitiveType?) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let flag): return flag ? "true" : "false"
        case .integer(let number):
            return type == .int64 ? "\(number)L" : String(number)
        case .double(let number):
            return numberText(number) + (type == .single ? "f" : "d")
        case .decimal(let text): return text + "M"
        case .string(let text): return "'" + text.replacing("'", with: "''") + "'"
        case .binary(let bytes):
            let digits = Array("0123456789ABCDEF")
            return "X'" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + "'"
        case .dateTime(let milliseconds):
            return "datetime'" + CivilTime(millisecondsSinceEpoch: milliseconds).isoText + "'"
        case .dateTimeOffset(let milliseconds, _):
            return "datetimeoffset'" + CivilTime(millisecondsSinceEpoch: milliseconds).isoText + "Z'"
        case .time(let milliseconds):
            return "time'PT" + numberText(Double(milliseconds) / 1000) + "S'"
        case .guid(let text): return "guid'\(text)'"
        }
    }

    /// Whole numbers without a fraction (`2`, not `2.0`).
    private static func numberText(_ number: Double) -> String {
        if number.isInfinite { return number < 0 ? "-INF" : "INF" }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int64(number)) }
        return String(number)
    }
}
