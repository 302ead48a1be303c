extension PendingCommit {
    /// A commit decided already, with `failure` or none: what an engine whose COMMIT has
    /// returned (durable, or refused) gives back from `EntityStore.write`.
    public static func decided(_ failure: (any StoreFailure)? = nil) -> PendingCommit {
        let commit = PendingCommit()
        commit.decide(failure)
        return commit
    }
}
