import Dispatch

/// Something a response must wait for before it may be sent, such as the commit that makes a
/// write durable. `HTTPServer` parks the connection meanwhile, not its thread, so that the
/// thread serves other connections (whose writes can then share the commit).
///
/// A class, so that a response carries one reference for it rather than an inline existential.
public protocol ResponseHold: AnyObject, Sendable {
    /// Calls `release` once, from any thread: with nil to send the response as it is, or with
    /// the response to send instead (when what it waited for failed).
    func whenReleased(_ release: @escaping @Sendable (HTTPResponse?) -> Void)
}

extension HTTPResponse {
    /// This response once its hold is released, waiting for that in the calling thread: for
    /// callers that cannot park a connection (and for a server that is stopping).
    public func settled() -> HTTPResponse {
        guard let hold else { return self }
        let outcome = SettledOutcome()
        hold.whenReleased { outcome.set($0) }
        var settled = outcome.wait() ?? self
        settled.hold = nil
        return settled
    }
}

/// The replacement a hold released with, handed from the releasing thread to the waiting one
/// (the semaphore orders the write before the read).
private final class SettledOutcome: @unchecked Sendable {
    private let released = DispatchSemaphore(value: 0)
    private var replacement: HTTPResponse?

    func set(_ replacement: HTTPResponse?) {
        self.replacement = replacement
        released.signal()
    }

    func wait() -> HTTPResponse? {
        released.wait()
        return replacement
    }
}
