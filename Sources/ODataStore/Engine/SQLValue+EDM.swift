import EDM

// The storage mapping of EDM values: how each simple type is kept (in SQLite, as below; another
// engine reads its own column types into the same values).
//   Boolean -> INTEGER 0/1; Byte..Int64 -> INTEGER; Single, Double -> REAL;
//   Decimal -> TEXT (exact, compared numerically in queries); String, Guid -> TEXT;
//   Binary -> BLOB; DateTime, DateTimeOffset -> INTEGER milliseconds since the epoch (UTC);
//   Time -> INTEGER milliseconds since midnight.

extension SQLValue {
    public init(_ value: EDMValue) {
        switch value {
        case .null: self = .null
        case .boolean(let b): self = .integer(b ? 1 : 0)
        case .integer(let i): self = .integer(i)
        case .double(let d): self = .real(d)
        case .decimal(let text): self = .text(text)
        case .string(let s): self = .text(s)
        case .binary(let bytes): self = .blob(bytes)
        case .dateTime(let ms): self = .integer(ms)
        case .dateTimeOffset(let ms, _): self = .integer(ms)
        case .time(let ms): self = .integer(ms)
        case .guid(let g): self = .text(g)
        }
    }
}

extension EDMValue {
    /// The EDM value of a stored column of the given type.
    public init(_ value: SQLValue, as type: PrimitiveType) {
        switch (value, type) {
        case (.null, _): self = .null
        case (.integer(let i), .boolean): self = .boolean(i != 0)
        case (.integer(let i), .byte), (.integer(let i), .sByte), (.integer(let i), .int16),
             (.integer(let i), .int32), (.integer(let i), .int64): self = .integer(i)
        case (.real(let d), .byte), (.real(let d), .sByte), (.real(let d), .int16),
             (.real(let d), .int32), (.real(let d), .int64): self = .integer(Int64(d))
        case (.integer(let i), .double), (.integer(let i), .single): self = .double(Double(i))
        case (.real(let d), .double), (.real(let d), .single): self = .double(d)
        case (.text(let t), .decimal): self = .decimal(t)
        case (.integer(let i), .decimal): self = .decimal(String(i))
        case (.real(let d), .decimal): self = .decimal(String(d))
        case (.integer(let i), .dateTime): self = .dateTime(i)
        case (.integer(let i), .dateTimeOffset): self = .dateTimeOffset(i, offsetMinutes: 0)
        case (.integer(let i), .time): self = .time(i)
        case (.text(let t), .guid): self = .guid(t)
        case (.blob(let b), .binary): self = .binary(b)
        case (.text(let t), .binary): self = .binary(Array(t.utf8))
        case (.text(let t), _): self = .string(t)
        case (.integer(let i), _): self = .string(String(i))
        case (.real(let d), _): self = .string(String(d))
        case (.blob(let b), _): self = .string(String(decoding: b, as: UTF8.self))
        }
    }
}
