/// How many statements a read scope is known to run, said before its first one: an engine
/// whose snapshot costs statements of its own (PostgreSQL's `BEGIN … READ ONLY` and `COMMIT`)
/// runs a scope of one statement without them, since one statement always sees one snapshot.
/// An engine that gains nothing from it may ignore it.
public enum ReadScopeShape: Sendable, Equatable {
    /// At most one statement. Declared only when that is certain: should a second statement
    /// come all the same, the engine must still give the scope one snapshot (PostgreSQL runs
    /// the body again inside a transaction, and counts the misprediction).
    case singleStatement
    /// Any number of statements, all in one snapshot.
    case severalStatements
    /// Any number of statements, all in one snapshot, read for one read plan (`QueryMemo`), told
    /// apart by `plan`: its reads mostly run the same statements, differing in their parameters.
    /// An engine whose round trips are costly may learn them from one read and send a later
    /// read's together, provided it gives each statement only a result of its own text and
    /// parameters.
    case plannedStatements(plan: Int)
}
