import EDM

/// Writes EDM values in their URI literal form (MS-ODATA 2.2.2), as keys appear in
/// `Set(key)` and in skip tokens; `LiteralParser` reads each back to the same value.
public enum LiteralFormatter {
    public static func literal(_ value: EDMValue, type: PrimitiveType) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return type == .int64 ? "\(i)L" : "\(i)"
        case .double(let d):
            let text = d.isFinite ? "\(d)" : (d.isNaN ? "NaN" : (d > 0 ? "INF" : "-INF"))
            return type == .single ? text + "f" : text + (d.isFinite ? "d" : "")
        case .decimal(let text): return text + "M"
        case .string(let s): return "'" + s.replacingOccurrences(of: "'", with: "''") + "'"
        case .binary(let bytes): return "X'" + bytes.map { hex($0) }.joined() + "'"
        case .dateTime(let ms): return "datetime'" + CivilTime(millisecondsSinceEpoch: ms).isoText + "'"
        case .dateTimeOffset(let ms, let offset):
            return "datetimeoffset'" + CivilTime(millisecondsSinceEpoch: ms + Int64(offset) * 60_000).isoText + offsetText(offset) + "'"
        case .time(let ms): return "time'" + durationText(milliseconds: ms) + "'"
        case .guid(let g): return "guid'" + g + "'"
        }
    }

    /// The key predicate inside `Set(...)`: `1`, or `a=1,b='x'` for a composite key.
    public static func keyPredicate(_ values: [EDMValue], of type: EntityType) -> String {
        let keys = type.keyProperties
        if keys.count == 1, let value = values.first {
            return literal(value, type: keys[0].type)
        }
        return zip(keys, values).map { $0.name + "=" + literal($1, type: $0.type) }.joined(separator: ",")
    }

    /// A `$skiptoken` holding `values`, each as a skip token reads it back: `$orderby` values
    /// come in their storage form (integers as `5L`, reals as `2.5d`), keys as their own
    /// literals.
    public static func skipToken(_ values: [EDMValue]) -> String {
        values.map { value in
            switch value {
            case .integer(let number): return "\(number)L"
            case .double: return literal(value, type: .double)
            default: return literal(value, type: .string)
            }
        }.joined(separator: ",")
    }

    /// `Z` or `+hh:mm` / `-hh:mm`.
    public static func offsetText(_ minutes: Int) -> String {
        if minutes == 0 { return "Z" }
        let sign = minutes < 0 ? "-" : "+"
        let m = abs(minutes)
        return sign + twoDigits(m / 60) + ":" + twoDigits(m % 60)
    }

    /// An xsd:duration such as `PT13H20M` or `PT0S`, the V2 form of Edm.Time.
    public static func durationText(milliseconds ms: Int64) -> String {
        var text = ms < 0 ? "-PT" : "PT"
        let total = abs(ms)
        let hours = total / 3_600_000
        let minutes = (total / 60_000) % 60
        let seconds = (total / 1000) % 60
        let millis = total % 1000
        if hours > 0 { text += "\(hours)H" }
        if minutes > 0 { text += "\(minutes)M" }
        if seconds > 0 || millis > 0 || (hours == 0 && minutes == 0) {
            text += "\(seconds)"
            if millis > 0 {
                var fraction = String(millis)
                while fraction.count < 3 { fraction = "0" + fraction }
                while fraction.hasSuffix("0") { fraction.removeLast() }
                text += "." + fraction
            }
            text += "S"
        }
        return text
    }

    private static func twoDigits(_ n: Int) -> String { n < 10 ? "0\(n)" : "\(n)" }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789ABCDEF")
        return String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0xF)])
    }
}
