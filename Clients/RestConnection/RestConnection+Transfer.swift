import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension RestConnection {
    /// One exchange with the server, bounded by `timeout` as a deadline for the whole of it:
    /// URLSession's own timeout counts only idle time, so a server sending a byte a second
    /// would otherwise hold the caller for as long as it likes. Cancelling the calling task
    /// cancels the exchange.
    func transfer(_ request: URLRequest) async throws -> (Data, URLResponse) {
        let state = Locked(TransferState())
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<(Data, URLResponse), any Error>) in
                let task = session.dataTask(with: request) { data, response, error in
                    let outcome: Result<(Data, URLResponse), any Error>
                    if let error {
                        outcome = .failure(error)
                    } else if let response {
                        outcome = .success((data ?? Data(), response))
                    } else {
                        outcome = .failure(URLError(.badServerResponse))
                    }
                    TransferState.finish(state, outcome)
                }
                let cancelledAlready = state.withLock { state -> Bool in
                    state.continuation = continuation
                    state.task = task
                    return state.cancelled
                }
                if cancelledAlready {
                    TransferState.finish(state, .failure(CancellationError()))
                    return
                }
                let deadline = DispatchWorkItem {
                    TransferState.finish(state, .failure(URLError(.timedOut)))
                }
                state.withLock { $0.deadline = deadline }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
            }
        } onCancel: {
            state.withLock { $0.cancelled = true }
            TransferState.finish(state, .failure(CancellationError()))
        }
    }
}

/// Who finishes first: the answer, the deadline or a cancellation. The first resumes the
/// caller; the others find nothing left to do.
struct TransferState {
    var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    var task: URLSessionDataTask?
    var cancelled = false
    /// Cancelled once the exchange ends, so that it does not hold the state until it would fire.
    var deadline: DispatchWorkItem?

    /// Resumes the caller once; a failure also cancels the URLSession task, outside the lock,
    /// since a cancelled task calls its completion handler, which takes the lock again.
    static func finish(_ state: Locked<TransferState>, _ outcome: Result<(Data, URLResponse), any Error>) {
        let (continuation, task, deadline) = state.withLock { state in
            defer { state.continuation = nil; state.task = nil; state.deadline = nil }
            return (state.continuation, state.task, state.deadline)
        }
        guard let continuation else { return }
        deadline?.cancel()
        if case .failure = outcome { task?.cancel() }
        continuation.resume(with: outcome)
    }
}
