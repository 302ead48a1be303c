import ODataStore

/// Where a read scope stands: its plan, how many statements it has run, how many
/// it is expected to run, and whether its snapshot has ended. In a transaction the expected
/// count is that of the last scope of the same plan (`ScopePlan`), and the
/// snapshot ends when the COMMIT goes with the last of them; a scope of one statement without a
/// transaction expects one, whose own snapshot ends it. A statement past the end would read
/// another snapshot: it is refused (`overran`, `refusedSQL`) and the scope runs again in a
/// transaction, its COMMIT sent after it. So is a statement other than the one sent ahead for it
/// (`prefetched`), since that COMMIT went with the ones sent.
struct SnapshotScope {
    /// False for a scope of one statement run without BEGIN and COMMIT.
    let inTransaction: Bool
    /// The read plan the scope reads for, when it said (`ReadScopeShape.plannedStatements`).
    let plan: Int?
    var expected: Int?
    /// What its plan is learned and found by, known at its first statement.
    var planKey: ScopePlan.Key?
    var statements = 0
    var ended = false
    var overran = false
    var refusedSQL: String?
    /// Whether the statement refused was not the one sent ahead for it.
    var mispredicted = false
    /// The first statement's parameters while the scope's plan is being learned (no plan yet).
    var learningFrom: [SQLValue]?
    /// The statements run after the first while learning.
    var observed: [ScopePlan.LaterStatement] = []
    /// The later statements sent in the round trip of the first, in the order they are to be asked for.
    var prefetched: [PrefetchedStatement] = []
}
