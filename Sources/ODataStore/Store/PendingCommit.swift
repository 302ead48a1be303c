/// The commit a write of the store (`EntityStore.write`) waits for: until it is decided, the write's changes are
/// neither durable nor visible to others, and must not be acknowledged.
public final class PendingCommit: @unchecked Sendable {
    public typealias Callback = @Sendable ((any StoreFailure)?) -> Void

    /// Guards the two below; its condition is signalled when the commit is decided.
    private let lock = ConditionLock()
    /// Set once: `.some(nil)` for a commit, `.some(error)` for a failure.
    private var outcome: (any StoreFailure)??
    private var callback: Callback?

    /// An undecided commit: the engine decides it (`decide`) once its transaction ends.
    package init() {}

    /// Blocks until the commit is decided; throws when the write was not committed.
    public func wait() throws {
        let failure = lock.withLock {
            while outcome == nil { lock.wait() }
            return outcome!
        }
        if let failure { throw failure }
    }

    /// Calls `callback` once with the outcome (nil: committed): at once when it is decided
    /// already, otherwise on the committer's thread when it is. At most one callback.
    public func whenDecided(_ callback: @escaping Callback) {
        let decided: (any StoreFailure)?? = lock.withLock {
            if outcome == nil {
                precondition(self.callback == nil, "a pending commit takes one callback")
                self.callback = callback
            }
            return outcome
        }
        if let failure = decided { callback(failure) }
    }

    package func decide(_ failure: (any StoreFailure)?) {
        let callback: Callback? = lock.withLock {
            precondition(outcome == nil, "a commit is decided once")
            outcome = .some(failure)
            lock.broadcast()
            let callback = self.callback
            self.callback = nil
            return callback
        }
        callback?(failure)
    }
}
