/// Where a read scope stands: its first statement, how many statements it has run, how many
/// it is expected to run, and whether its snapshot has ended. In a transaction the expected
/// count is that of the last scope that began with the same statement, and the snapshot ends
/// when the COMMIT goes with the last of them; a scope of one statement without a transaction
/// expects one, whose own snapshot ends it. A statement past the end would read another
/// snapshot: it is refused (`overran`, `refusedSQL`) and the scope runs again in a transaction,
/// its COMMIT sent after it.
struct SnapshotScope {
    /// False for a scope of one statement run without BEGIN and COMMIT.
    let inTransaction: Bool
    var expected: Int?
    var firstSQL: String?
    var statements = 0
    var ended = false
    var overran = false
    var refusedSQL: String?
}
