import HTTPCore
import ODataStore

/// Holds a write's response until the write's commit is decided (see `WriteGate`): a write is
/// acknowledged only once it is durable, and a failed commit is answered with an error instead.
final class CommitHold: ResponseHold {
    let commit: PendingCommit
    /// The error response for a commit that failed, built only then.
    let failureResponse: @Sendable (any StoreFailure) -> HTTPResponse

    init(commit: PendingCommit, failureResponse: @escaping @Sendable (any StoreFailure) -> HTTPResponse) {
        self.commit = commit
        self.failureResponse = failureResponse
    }

    func whenReleased(_ release: @escaping @Sendable (HTTPResponse?) -> Void) {
        let failureResponse = self.failureResponse
        commit.whenDecided { failure in release(failure.map(failureResponse)) }
    }
}
