import ODataStore

/// Holds a write's response until the write's commit is decided (see `WriteGate`): a write is
/// acknowledged only once it is durable, and a failed commit is answered with an error instead.
struct CommitHold: ResponseHold {
    let commit: PendingCommit
    /// The error response for a commit that failed, built only then.
    let failureResponse: @Sendable (SQLiteError) -> HTTPResponse

    func whenReleased(_ release: @escaping @Sendable (HTTPResponse?) -> Void) {
        commit.whenDecided { failure in release(failure.map(failureResponse)) }
    }
}
