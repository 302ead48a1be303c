import EDM
import ODataStore

extension JSONWriter {
    /// Writes a stored column value in the verbose JSON form of its EDM type, straight from
    /// where it is stored: the common types without building an `EDMValue` or a String first.
    public mutating func storedColumn(_ column: StoredColumn, type: PrimitiveType) {
        switch (column, type) {
        case (.null, _):
            raw("null")
        case (.integer(let i), .byte), (.integer(let i), .sByte), (.integer(let i), .int16), (.integer(let i), .int32):
            integer(i)
        case (.integer(let i), .boolean):
            i != 0 ? raw("true") : raw("false")
        case (.integer(let i), .int64):
            byte(UInt8(ascii: "\""))
            integer(i)
            byte(UInt8(ascii: "\""))
        case (.integer(let i), .dateTime):
            raw("\"\\/Date(")
            integer(i)
            raw(")\\/\"")
        case (.text(let utf8), .string), (.text(let utf8), .guid), (.text(let utf8), .decimal):
            byte(UInt8(ascii: "\""))
            appendEscaped(utf8)
            byte(UInt8(ascii: "\""))
        default:
            self.value(EDMValue(column.value, as: type), type: type)
        }
    }

    /// Appends bytes known to need no escaping.
    @inline(__always)
    mutating func appendVerbatim(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        appendVerbatim(UnsafeBufferPointer(rebasing: bytes[range]))
    }
}
