import CSQLite
import ODataStore

/// An error reported by SQLite, with its result code and message.
public struct SQLiteError: StoreFailure {
    public let code: Int32
    public let message: String
    /// The statement that failed, for logs only: it never reaches a client.
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    /// The primary result code (extended codes carry it in the low byte).
    public var primaryCode: Int32 { code & 0xFF }

    public var violatedConstraint: ViolatedConstraint? {
        guard primaryCode == SQLITE_CONSTRAINT else { return nil }
        switch code {
        case 1555, 2067: return .uniqueKey  // SQLITE_CONSTRAINT_PRIMARYKEY, SQLITE_CONSTRAINT_UNIQUE
        case 787: return .foreignKey  // SQLITE_CONSTRAINT_FOREIGNKEY
        default: return .other
        }
    }
    public var isBusy: Bool { primaryCode == SQLITE_BUSY || primaryCode == SQLITE_LOCKED }
    /// A transaction rolled back for a reason outside the statement, such as another write of
    /// the same `WriteGate` group failing: the same write may succeed when tried again.
    public var isAborted: Bool { primaryCode == SQLITE_ABORT }

    public var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " in <\(sql)>" }
        return text
    }
}

/// A database file that SQLite's integrity check finds damaged, or cannot read as a database.
public struct DatabaseIntegrityError: Error, CustomStringConvertible, Sendable {
    public let path: String
    /// What the check reported, at most its first 20 problems.
    public let problems: [String]

    public init(path: String, problems: [String]) {
        self.path = path
        self.problems = problems
    }

    public var description: String {
        "the database \(path) is damaged or is not an SQLite database (PRAGMA quick_check: \(problems.joined(separator: "; ").split(separator: "\n").joined(separator: " "))); "
            + "refusing to serve it. Restore it from a backup, or move it away to start with a new one."
    }
}
