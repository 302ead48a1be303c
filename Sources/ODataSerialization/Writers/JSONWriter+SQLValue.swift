import EDM
import ODataStore

extension JSONWriter {
    /// Writes a stored column value in the verbose JSON form of its EDM type, straight from the
    /// row: the common types without building an `EDMValue` first.
    public mutating func storedValue(_ value: SQLValue, type: PrimitiveType) {
        switch (value, type) {
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
        case (.text(let text), .string), (.text(let text), .guid), (.text(let text), .decimal):
            string(text)
        default:
            self.value(EDMValue(value, as: type), type: type)
        }
    }

    /// Appends bytes known to need no escaping.
    @inline(__always)
    mutating func appendVerbatim(_ bytes: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) {
        appendVerbatim(UnsafeBufferPointer(rebasing: bytes[range]))
    }
}
