import Synchronization

/// How the read scopes of a connection, or of all a store's reader connections, ran: how many
/// ran their one statement without a transaction, and how many were declared single-statement
/// but ran a second one (each then run again in a snapshot transaction). A second statement
/// is a misprediction of the read path; tests require none.
public final class ReadScopeTally: Sendable {
    private let singleStatement = Atomic<Int>(0)
    private let overran = Atomic<Int>(0)
    private let lastOverrun = Mutex<String?>(nil)
    private let earlyCommit = Atomic<Int>(0)
    private let earlyCommitOverran = Atomic<Int>(0)
    private let prefetched = Atomic<Int>(0)

    public init() {}

    /// Scopes run without a transaction, declared to need one statement.
    public var singleStatementScopes: Int { singleStatement.load(ordering: .relaxed) }
    /// Of those, the scopes that ran a second statement, and so were run again in a transaction.
    public var overrunScopes: Int { overran.load(ordering: .relaxed) }
    /// The second statement of the last overrun scope, to find the read that mispredicted.
    public var lastOverrunSQL: String? { lastOverrun.withLock { $0 } }

    /// Snapshot scopes whose COMMIT travelled with their last statement.
    public var earlyCommitScopes: Int { earlyCommit.load(ordering: .relaxed) }
    /// Snapshot scopes that ran more statements than expected, and so were run again.
    public var earlyCommitOverruns: Int { earlyCommitOverran.load(ordering: .relaxed) }

    /// Statements sent, and answered, in the round trip of their scope's first statement (`ScopePlan`).
    public var prefetchedStatements: Int { prefetched.load(ordering: .relaxed) }

    func countPrefetched(_ statements: Int) {
        prefetched.add(statements, ordering: .relaxed)
    }

    func countEarlyCommit() {
        earlyCommit.add(1, ordering: .relaxed)
    }

    func countEarlyCommitOverrun() {
        earlyCommitOverran.add(1, ordering: .relaxed)
    }

    func countSingleStatementScope() {
        singleStatement.add(1, ordering: .relaxed)
    }

    func countOverrun(secondStatement sql: String?) {
        overran.add(1, ordering: .relaxed)
        lastOverrun.withLock { $0 = sql }
    }
}
