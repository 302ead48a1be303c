/// The SQL text of a statement, with its hash taken once: how a connection finds its prepared
/// statement for a plan (`SQLConnection.statement(_:)`). A plan keeps its keys, so a repeated
/// request neither builds its SQL nor hashes the text to find the statement again.
public struct StatementKey: Hashable, Sendable {
    public let sql: String
    private let hash: Int

    public init(_ sql: String) {
        self.sql = sql
        self.hash = sql.hashValue
    }

    public static func == (left: StatementKey, right: StatementKey) -> Bool {
        left.hash == right.hash && left.sql == right.sql
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}
