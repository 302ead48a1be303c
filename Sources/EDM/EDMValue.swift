/// A value of an EDM simple type, as every layer above storage sees it.
public enum EDMValue: Sendable, Hashable {
    case null
    case boolean(Bool)
    /// Byte, SByte, Int16, Int32 and Int64.
    case integer(Int64)
    /// Single and Double.
    case double(Double)
    /// Decimal, kept as its canonical text so that no precision is lost.
    case decimal(String)
    case string(String)
    case binary([UInt8])
    /// Milliseconds since 1970-01-01T00:00:00Z.
    case dateTime(Int64)
    /// An instant (milliseconds since the epoch, UTC) and the offset it was given in.
    case dateTimeOffset(Int64, offsetMinutes: Int)
    /// Milliseconds since midnight.
    case time(Int64)
    /// Lower-case canonical form, 8-4-4-4-12 hex digits.
    case guid(String)

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}
