@testable import ODataStore

extension EntityCursor {
    /// Each entity's own columns, owned, to compare after the cursor is gone.
    func records() throws -> [EntityRecord] {
        var records: [EntityRecord] = []
        try forEach { records.append($0.record) }
        return records
    }
}

extension LentCollection {
    /// The entities lent, each its own columns owned.
    func records() throws -> [EntityRecord] {
        var records: [EntityRecord] = []
        try forEach { records.append($0.record) }
        return records
    }
}
