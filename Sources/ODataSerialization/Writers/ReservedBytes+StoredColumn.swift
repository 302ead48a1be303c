import EDM
import ODataStore

extension ReservedBytes {
    /// The most a stored column of a bounded kind takes (`putStoredColumn`): a date's
    /// `"\/Date(` and `)\/"` around a signed 19-digit number, or 30 bytes of text in quotes.
    static let storedColumnBound = 32

    /// Writes `column` when its JSON has a bounded size, at most `storedColumnBound` bytes
    /// (null, integers, booleans, dates, and short text that needs no escape), and answers
    /// whether it did; the rest is for `JSONWriter.storedColumnOfUnboundedSize`.
    @inline(__always)
    mutating func putStoredColumn(_ column: StoredColumn, type: PrimitiveType) -> Bool {
        switch (column, type) {
        case (.null, _):
            put("null")
        case (.integer(let i), .byte), (.integer(let i), .sByte), (.integer(let i), .int16), (.integer(let i), .int32):
            putInteger(i)
        case (.integer(let i), .boolean):
            i != 0 ? put("true") : put("false")
        case (.integer(let i), .int64):
            put(UInt8(ascii: "\""))
            putInteger(i)
            put(UInt8(ascii: "\""))
        case (.integer(let i), .dateTime):
            put("\"\\/Date(")
            putInteger(i)
            put(")\\/\"")
        case (.text(let utf8), .string), (.text(let utf8), .guid), (.text(let utf8), .decimal):
            guard utf8.count <= Self.storedColumnBound - 2, JSONWriter.needsNoEscape(utf8) else { return false }
            put(UInt8(ascii: "\""))
            put(utf8)
            put(UInt8(ascii: "\""))
        default:
            return false
        }
        return true
    }
}
