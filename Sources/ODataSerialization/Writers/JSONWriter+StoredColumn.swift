import EDM
import ODataStore

extension JSONWriter {
    /// Writes a stored column value in the verbose JSON form of its EDM type, straight from
    /// where it is stored: the common types without building an `EDMValue` or a String first.
    public mutating func storedColumn(_ column: StoredColumn, type: PrimitiveType) {
        var room = reserve(ReservedBytes.storedColumnBound)
        let written = room.putStoredColumn(column, type: type)
        commit(room)
        if !written { storedColumnOfUnboundedSize(column, type: type) }
    }

    /// The stored columns that `ReservedBytes.putStoredColumn` leaves: text, which is escaped,
    /// and the types written through `EDMValue`.
    mutating func storedColumnOfUnboundedSize(_ column: StoredColumn, type: PrimitiveType) {
        switch (column, type) {
        case (.text(let utf8), .string), (.text(let utf8), .guid), (.text(let utf8), .decimal):
            byte(UInt8(ascii: "\""))
            appendEscaped(utf8)
            byte(UInt8(ascii: "\""))
        default:
            self.value(EDMValue(column.value, as: type), type: type)
        }
    }

}
