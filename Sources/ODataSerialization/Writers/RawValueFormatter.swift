import EDM
import ODataURI

/// The raw text of a property value for `$value` (MS-ODATA 2.2.6.4): the literal without its
/// type markers, e.g. `2009-11-01T12:00:00` rather than `datetime'2009-11-01T12:00:00'`.
public enum RawValueFormatter {
    public static func text(_ value: EDMValue, type: PrimitiveType) -> String {
        switch value {
        case .null: return ""
        case .boolean(let b): return b ? "true" : "false"
        case .integer(let i): return String(i)
        case .double(let d): return d.isNaN ? "NaN" : d.isInfinite ? (d > 0 ? "INF" : "-INF") : String(d)
        case .decimal(let text): return text
        case .string(let s): return s
        case .binary(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .dateTime(let ms): return CivilTime(millisecondsSinceEpoch: ms).isoText
        case .dateTimeOffset(let ms, let offset):
            return CivilTime(millisecondsSinceEpoch: ms + Int64(offset) * 60_000).isoText + LiteralFormatter.offsetText(offset)
        case .time(let ms): return LiteralFormatter.durationText(milliseconds: ms)
        case .guid(let g): return g
        }
    }
}
