/// Where a read scope's snapshot transaction stands: its first statement, how many statements
/// it has run, how many it is expected to run (the count its first statement's last scope
/// ran), and whether its COMMIT already went with the last of them. A statement past an early
/// COMMIT would read another snapshot: it is refused (`overran`) and the scope runs again
/// with its COMMIT sent after it.
struct SnapshotScope {
    var firstSQL: String?
    var statements = 0
    var expected: Int?
    var committed = false
    var overran = false
}
