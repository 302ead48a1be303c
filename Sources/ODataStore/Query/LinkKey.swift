/// The column values that link a row to its related rows in `$expand`: a foreign key or the
/// key it references. A single column, the usual case, needs no array and so no allocation.
public struct LinkKey: Hashable {
    public let first: SQLValue
    /// The further columns of a composite key; empty (and unallocated) otherwise.
    public let rest: [SQLValue]

    /// The values of `entity` at `indexes`, or nil when one is null: a null links to nothing.
    init?(_ entity: EntityRow, _ indexes: [Int]) {
        let first = entity.value(at: indexes[0])
        if case .null = first { return nil }
        var rest: [SQLValue] = []
        if indexes.count > 1 {
            rest.reserveCapacity(indexes.count - 1)
            for index in indexes.dropFirst() {
                let value = entity.value(at: index)
                if case .null = value { return nil }
                rest.append(value)
            }
        }
        self.first = first
        self.rest = rest
    }
}
