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
        var request = request
        #if canImport(CCurl)
        if let trustMarker { request.setValue(trustMarker, forHTTPHeaderField: CurlTrustProtocol.trustHeader) }
        #endif
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
                    TransferState.taskEnded(state, outcome)
                }
                let cancelledAlready = state.withLock { state -> Bool in
                    state.continuation = continuation
                    state.task = task
                    return state.cancelled
                }
                if cancelledAlready {
                    // Never started, so nothing can race its cancellation.
                    TransferState.resume(state, .failure(CancellationError()))
                    task.cancel()
                    return
                }
                let deadline = DispatchWorkItem {
                    TransferState.stop(state, because: URLError(.timedOut))
                }
                state.withLock { $0.deadline = deadline }
                task.resume()
                DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: deadline)
            }
        } onCancel: {
            state.withLock { $0.cancelled = true }
            TransferState.stop(state, because: CancellationError())
        }
    }
}

/// Who finishes first: the answer, the deadline or a cancellation. The first decides what the
/// caller gets; the caller is resumed once.
struct TransferState {
    var continuation: CheckedContinuation<(Data, URLResponse), any Error>?
    var task: URLSessionDataTask?
    var cancelled = false
    /// Cancelled once the exchange ends, so that it does not hold the state until it would fire.
    var deadline: DispatchWorkItem?
    /// Why the exchange is being stopped (the deadline or a cancellation) while URLSession
    /// winds its task down.
    var stopping: (any Error)?

    /// How long a stopped exchange waits for URLSession to let go of its task.
    static let windDown: TimeInterval = 1

    /// Resumes the caller, the first time only.
    static func resume(_ state: Locked<TransferState>, _ outcome: Result<(Data, URLResponse), any Error>) {
        let (continuation, deadline) = state.withLock { state in
            defer { state.continuation = nil; state.task = nil; state.deadline = nil }
            return (state.continuation, state.deadline)
        }
        deadline?.cancel()
        continuation?.resume(with: outcome)
    }

    /// URLSession has ended the task: the caller gets its answer, or why it was stopped.
    static func taskEnded(_ state: Locked<TransferState>, _ outcome: Result<(Data, URLResponse), any Error>) {
        let stopping = state.withLock { $0.stopping }
        resume(state, stopping.map { .failure($0) } ?? outcome)
    }

    /// Stops the exchange for `reason`. The caller is resumed when URLSession has let go of the
    /// task (its completion handler has run), or `windDown` later at the latest: on Linux,
    /// URLSession traps when a task it is cancelling ends in between, and what a caller does
    /// next, such as closing the server, can end it. Cancelled outside the lock, since the
    /// completion handler takes it again.
    static func stop(_ state: Locked<TransferState>, because reason: any Error) {
        let task: URLSessionDataTask? = state.withLock { state in
            guard state.continuation != nil, state.stopping == nil else { return nil }
            state.stopping = reason
            return state.task
        }
        guard let task else { return }
        task.cancel()
        DispatchQueue.global().asyncAfter(deadline: .now() + windDown) {
            resume(state, .failure(reason))
        }
    }
}
