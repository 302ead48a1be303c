#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The commit a write of a `WriteGate` waits for: until it is decided, the write's changes are
/// neither durable nor visible to others, and must not be acknowledged.
public final class PendingCommit: @unchecked Sendable {
    public typealias Callback = @Sendable (SQLiteError?) -> Void

    private var mutex = pthread_mutex_t()
    private var decided = pthread_cond_t()
    /// Set once: `.some(nil)` for a commit, `.some(error)` for a failure.
    private var outcome: SQLiteError??
    private var callback: Callback?

    init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&decided, nil)
    }

    deinit {
        pthread_cond_destroy(&decided)
        pthread_mutex_destroy(&mutex)
    }

    /// Blocks until the commit is decided; throws when the write was not committed.
    public func wait() throws(SQLiteError) {
        pthread_mutex_lock(&mutex)
        while outcome == nil { pthread_cond_wait(&decided, &mutex) }
        let failure = outcome!
        pthread_mutex_unlock(&mutex)
        if let failure { throw failure }
    }

    /// Calls `callback` once with the outcome (nil: committed): at once when it is decided
    /// already, otherwise on the committer's thread when it is. At most one callback.
    public func whenDecided(_ callback: @escaping Callback) {
        pthread_mutex_lock(&mutex)
        guard let failure = outcome else {
            precondition(self.callback == nil, "a pending commit takes one callback")
            self.callback = callback
            pthread_mutex_unlock(&mutex)
            return
        }
        pthread_mutex_unlock(&mutex)
        callback(failure)
    }

    func decide(_ failure: SQLiteError?) {
        pthread_mutex_lock(&mutex)
        precondition(outcome == nil, "a commit is decided once")
        outcome = .some(failure)
        let callback = self.callback
        self.callback = nil
        pthread_cond_broadcast(&decided)
        pthread_mutex_unlock(&mutex)
        callback?(failure)
    }
}
