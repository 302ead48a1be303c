/// The EDM simple types of OData V2 (MS-ODATA 2.2.2, [MC-CSDL] 2.2.1).
public enum PrimitiveType: String, Sendable, CaseIterable {
    case binary = "Edm.Binary"
    case boolean = "Edm.Boolean"
    case byte = "Edm.Byte"
    case dateTime = "Edm.DateTime"
    case dateTimeOffset = "Edm.DateTimeOffset"
    case decimal = "Edm.Decimal"
    case double = "Edm.Double"
    case single = "Edm.Single"
    case guid = "Edm.Guid"
    case int16 = "Edm.Int16"
    case int32 = "Edm.Int32"
    case int64 = "Edm.Int64"
    case sByte = "Edm.SByte"
    case string = "Edm.String"
    case time = "Edm.Time"

    public var name: String { rawValue }

    public var isIntegral: Bool {
        switch self {
        case .byte, .sByte, .int16, .int32, .int64: return true
        default: return false
        }
    }

    public var isNumeric: Bool {
        isIntegral || self == .decimal || self == .double || self == .single
    }

    /// The inclusive range an integral type holds; nil for other types.
    public var integerRange: ClosedRange<Int64>? {
        switch self {
        case .byte: return 0...255
        case .sByte: return -128...127
        case .int16: return Int64(Int16.min)...Int64(Int16.max)
        case .int32: return Int64(Int32.min)...Int64(Int32.max)
        case .int64: return Int64.min...Int64.max
        default: return nil
        }
    }

    /// Rank in the numeric promotion order of MS-ODATA 2.2.3.6.1.1.1 (binary numeric promotion).
    public var numericRank: Int? {
        switch self {
        case .byte, .sByte: return 0
        case .int16: return 1
        case .int32: return 2
        case .int64: return 3
        case .single: return 4
        case .double: return 5
        case .decimal: return 6
        default: return nil
        }
    }
}
