import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A loopback TCP socket that accepts connections into its backlog and never answers:
/// a server that hangs, for timeouts and cancellation.
final class SilentListener: @unchecked Sendable {
    let port: UInt16
    private var descriptor: Int32

    init() throws {
        (descriptor, port) = try LoopbackSocket.listen()
    }

    /// A service root on this listener.
    var root: String { "http://127.0.0.1:\(port)/CarDealer.svc/" }

    /// Whether a client has connected and is waiting in the backlog for an answer.
    var hasWaitingClient: Bool {
        var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        return descriptor >= 0 && poll(&pollDescriptor, 1, 0) > 0
    }

    func close() {
        if descriptor >= 0 {
            Glibc.close(descriptor)
            descriptor = -1
        }
    }

    deinit { close() }
}
