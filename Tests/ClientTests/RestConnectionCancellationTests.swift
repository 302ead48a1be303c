import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection
import Testing

/// A cancelled task's call throws `CancellationError`, what Swift concurrency code catches,
/// promptly, while the server is still holding its answer: a single request, an `all(...)`
/// iteration and a `getAll` both waiting on their second page.
@Suite struct RestConnectionCancellationTests {
    /// How long a step may wait for a thread when the whole suite runs at once.
    static let patience: TimeInterval = 240
    /// Far beyond `patience`, so that only a working cancellation ends a request in time.
    static let requestTimeout: TimeInterval = 900
    /// Starts `body` in a task, cancels it once it is waiting on `listener`, and returns how it
    /// ended and how long the cancellation took.
    private func cancelWhileWaiting<Value: Sendable>(on listener: SilentListener,
                                                     _ body: @escaping @Sendable () async throws -> Value) async -> (result: Result<Value, any Error>, seconds: TimeInterval) {
        let task = Task { try await body() }
        // Generous: with every suite running at once on two cores, tests that block their
        // thread (compilers, processes) can hold Swift's cooperative pool for a minute or more,
        // and this task needs a thread of it before it sends anything.
        let limit = Date().addingTimeInterval(Self.patience)
        while !listener.hasWaitingClient, Date() < limit {
            try? await Task.sleep(for: .milliseconds(20))
        }
        #expect(listener.hasWaitingClient, "the request never reached the server")
        // The request is sent; let the client settle into waiting for the answer.
        try? await Task.sleep(for: .milliseconds(100))
        let started = Date()
        task.cancel()
        let result = await task.result
        return (result, Date().timeIntervalSince(started))
    }

    private func expectCancellation<Value>(_ outcome: (result: Result<Value, any Error>, seconds: TimeInterval),
                                           sourceLocation: SourceLocation = #_sourceLocation) {
        // Well before the request timeout, with room for the cooperative pool to be held by
        // other tests meanwhile: a cancellation that did not work would end with the timeout's
        // error, not CancellationError.
        #expect(outcome.seconds < Self.patience, "cancellation took \(outcome.seconds) s", sourceLocation: sourceLocation)
        guard case .failure(let error) = outcome.result else {
            Issue.record("a cancelled request succeeded", sourceLocation: sourceLocation)
            return
        }
        #expect(error is CancellationError, "\(type(of: error)): \(error)", sourceLocation: sourceLocation)
    }

    @MainActor @Test func aCancelledRequestThrowsCancellationError() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let hanging = RestConnection(baseURL: URL(string: listener.root)!, timeout: Self.requestTimeout)
        let delegate = RecordingDelegate()
        hanging.delegate = delegate
        expectCancellation(await cancelWhileWaiting(on: listener) { try await hanging.get("Person") })
        // The delegate watches requests, not tasks: it hears the typed case.
        #expect(delegate.events.contains(.failed("cancelled")), "\(delegate.events)")
    }

    /// A server whose every answer is one row and a `__next` link to a server that never answers.
    private func pagingToNowhere() throws -> (first: RecordingServer, hanging: SilentListener) {
        let hanging = try SilentListener()
        let first = try RecordingServer(body: #"{"d":{"results":[{"ID":1}],"__next":"\#(hanging.root)Person?$skiptoken=1"}}"#)
        return (first, hanging)
    }

    @Test func aCancelledIterationThrowsCancellationError() async throws {
        let (first, hanging) = try pagingToNowhere()
        defer { first.close(); hanging.close() }
        let connection = RestConnection(baseURL: URL(string: first.root)!, timeout: Self.requestTimeout)
        let received = Counter()
        let outcome = await cancelWhileWaiting(on: hanging) {
            for try await _ in connection.all(JSONObject.self, "Person") { _ = received.next() }
        }
        expectCancellation(outcome)
        #expect(received.next() == 2, "the first page's row arrived before the wait for the second")
    }

    @Test func aCancelledGetAllThrowsCancellationError() async throws {
        let (first, hanging) = try pagingToNowhere()
        defer { first.close(); hanging.close() }
        let connection = RestConnection(baseURL: URL(string: first.root)!, timeout: Self.requestTimeout)
        expectCancellation(await cancelWhileWaiting(on: hanging) { try await connection.getAll("Person") })
        #expect(first.requests.count == 1, "the first page was read; the second is the one cancelled")
    }
}
