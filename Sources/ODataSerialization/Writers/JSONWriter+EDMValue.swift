import EDM
import Foundation
import ODataURI

extension JSONWriter {
    /// Writes a value in its verbose JSON form (MS-ODATA 2.2.6.3.1): Int64 and Decimal as
    /// strings, DateTime as `"\/Date(ms)\/"`, DateTimeOffset as `"\/Date(ms+mmmm)\/"`, Time as an
    /// xsd:duration, Binary as base64.
    public mutating func value(_ value: EDMValue, type: PrimitiveType) {
        switch value {
        case .null: raw("null")
        case .boolean(let b): b ? raw("true") : raw("false")
        case .integer(let i):
            if type == .int64 {
                byte(UInt8(ascii: "\""))
                integer(i)
                byte(UInt8(ascii: "\""))
            } else {
                integer(i)
            }
        case .double(let d):
            if d.isNaN { raw("\"NaN\"") } else if d.isInfinite { d > 0 ? raw("\"INF\"") : raw("\"-INF\"") } else if type == .single {
                text(Float(d).description)
            } else if d == d.rounded(), abs(d) < 1e15 {
                integer(Int64(d))
                raw(".0")
            } else {
                text(d.description)
            }
        case .decimal(let text): string(text)
        case .string(let s): string(s)
        case .binary(let data): string(Data(data).base64EncodedString())
        case .dateTime(let ms):
            raw("\"\\/Date(")
            integer(ms)
            raw(")\\/\"")
        case .dateTimeOffset(let ms, let offset):
            // The local clock time of the offset in milliseconds and the offset in minutes,
            // `"\/Date(ms+0060)\/"`: the form V2 clients (pyodata, Olingo, datajs) read for
            // Edm.DateTimeOffset (see DateTimeText).
            raw("\"\\/Date(")
            integer(ms + Int64(offset) * 60_000)
            byte(offset < 0 ? UInt8(ascii: "-") : UInt8(ascii: "+"))
            let minutes = abs(offset)
            for divisor in [1000, 100, 10, 1] { byte(UInt8(ascii: "0") + UInt8(minutes / divisor % 10)) }
            raw(")\\/\"")
        case .time(let ms): string(LiteralFormatter.durationText(milliseconds: ms))
        case .guid(let g): string(g)
        }
    }
}
