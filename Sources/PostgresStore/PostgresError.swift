import ODataStore

/// An error of PostgreSQL or of the connection to it, by the response it earns (`StoreFailure`):
/// the server's SQLSTATE decides, not its message.
public struct PostgresError: Error, CustomStringConvertible, Sendable {
    public enum Kind: Sendable, Equatable {
        /// The server cannot be reached, refused the login, or the connection dropped.
        case connectionFailure
        /// The server reported an error with a SQLSTATE.
        case server
        /// A read scope declared to run one statement (`ReadScopeShape.singleStatement`) was
        /// about to run a second, or a snapshot scope one past its COMMIT (`SnapshotScope`);
        /// the scope runs again in a transaction and never reports it.
        case readScopeOverrun
    }

    public let kind: Kind
    /// The five-character SQLSTATE the server sent (nil when the connection failed).
    public let sqlState: String?
    public let message: String
    /// The statement that failed, for logs only: it never reaches a client.
    public let sql: String?

    public init(kind: Kind = .server, sqlState: String?, message: String, sql: String? = nil) {
        self.kind = kind
        self.sqlState = sqlState
        self.message = message
        self.sql = sql
    }

    /// A serialization failure (40001) or a deadlock (40P01): the transaction was rolled back
    /// and the same one may succeed when run again.
    public var isSerializationFailure: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The connection is gone, or the server is shutting down or starting (class 08, 57P01..57P03).
    public var isConnectionFailure: Bool {
        kind == .connectionFailure || sqlState?.hasPrefix("08") == true
            || sqlState == "57P01" || sqlState == "57P02" || sqlState == "57P03"
    }

    public var description: String {
        var text = "PostgreSQL error" + (sqlState.map { " " + $0 } ?? "") + ": " + message
        if let sql { text += " in <\(sql)>" }
        return text
    }
}

extension PostgresError: StoreFailure {
    /// A lost connection, too many connections (53300) or a lock not available (55P03): the
    /// same request may succeed later (503).
    public var isBusy: Bool {
        isConnectionFailure || sqlState == "53300" || sqlState == "55P03"
    }

    /// A serialization failure or deadlock that outlived its retries, or a statement cancelled
    /// (57014, as by a statement timeout): rolled back, and the same write may succeed when
    /// tried again (503).
    public var isAborted: Bool { isSerializationFailure || sqlState == "57014" }

    /// A character the database's encoding cannot hold (22021, as for U+0000, which the
    /// connection refuses before sending; 22P05 untranslatable).
    public var rejectsValue: Bool { sqlState == "22021" || sqlState == "22P05" }

    /// Class 23, integrity constraint violation: unique (23505), foreign key (23503), others.
    public var violatedConstraint: ViolatedConstraint? {
        guard let sqlState, sqlState.hasPrefix("23") else { return nil }
        switch sqlState {
        case "23505": return .uniqueKey
        case "23503": return .foreignKey
        default: return .other
        }
    }
}
