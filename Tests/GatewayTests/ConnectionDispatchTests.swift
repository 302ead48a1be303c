import Foundation
import HTTPCore
import ODataHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The server accepts connections on one thread and deals them out to its worker threads in
/// turn, so that a burst of new keep-alive connections keeps every core busy. (When libmicrohttpd's
/// pool accepted for itself, one worker could take all of a client's connections and leave the
/// other core idle for the whole run.) It owns its port alone, and gives it up when stopped.
@Suite(.timeLimit(.minutes(1))) struct ConnectionDispatchTests {
    /// Which worker thread served each request target.
    final class ServedBy: @unchecked Sendable {
        private let lock = NSLock()
        private var threads: [String: pthread_t] = [:]

        func record(_ target: String) {
            let thread = pthread_self()
            lock.withLock { threads[target] = thread }
        }

        func thread(of target: String) -> pthread_t? { lock.withLock { threads[target] } }
    }

    /// A server on a free port whose handler records which thread served each request target.
    private func startServer(threads: Int) throws -> (HTTPServer, UInt16, ServedBy) {
        let servedBy = ServedBy()
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = threads
        let server = HTTPServer(configuration: configuration) { request in
            servedBy.record(request.target)
            return HTTPResponse(status: 200, body: Array(request.target.utf8))
        }
        return (server, try server.start(), servedBy)
    }

    @Test(arguments: [2, 3])
    func connectionsOpenedTogetherAreDealtOutToTheWorkersInTurn(workers: Int) throws {
        let (server, port, servedBy) = try startServer(threads: workers)
        defer { server.stop() }
        // All connected before any request, as a client pool opens them.
        let sockets = try (0..<16).map { _ in try RawHTTPClient.connect(port: port) }
        defer { sockets.forEach { close($0) } }
        for (index, socket) in sockets.enumerated() {
            let response = try RawHTTPClient.exchange(socket, port: port, target: "/connection/\(index)")
            #expect(response.status == 200 && response.text == "/connection/\(index)")
        }
        let threads = try (0..<16).map { index in try #require(servedBy.thread(of: "/connection/\(index)")) }
        #expect(Set(threads.prefix(workers)).count == workers, "the first \(workers) connections went to \(workers) different workers")
        for index in workers..<16 {
            #expect(threads[index] == threads[index % workers], "connection \(index) went to the worker of connection \(index % workers)")
        }
    }

    @Test func aSecondServerCannotTakeAPortInUse() throws {
        let (server, port, _) = try startServer(threads: 2)
        var configuration = HTTPServer.Configuration()
        configuration.port = port
        let second = HTTPServer(configuration: configuration) { _ in HTTPResponse(status: 500) }
        #expect(throws: HTTPServer.StartError.self) { _ = try second.start() }
        #expect(try RawHTTPClient.send(port: port, target: "/still-mine").text == "/still-mine")

        // Stopped, the first server gives the port up (it is free for a new server at once)...
        server.stop()
        #expect(throws: TestFailure.self) { _ = try RawHTTPClient.send(port: port, target: "/gone") }
        let third = HTTPServer(configuration: configuration) { request in HTTPResponse(status: 200, body: Array(request.target.utf8)) }
        #expect(try third.start() == port)
        defer { third.stop() }
        #expect(try RawHTTPClient.send(port: port, target: "/third").text == "/third")
    }

    /// Stopping ends the idle keep-alive connections the workers hold, and the accepting thread
    /// blocked waiting for the next one.
    @Test func stopEndsIdleConnectionsAndTheAcceptingThread() throws {
        let (server, port, _) = try startServer(threads: 2)
        let idle = try (0..<4).map { _ in try RawHTTPClient.connect(port: port) }
        defer { idle.forEach { close($0) } }
        #expect(try RawHTTPClient.send(port: port, target: "/warm").status == 200)
        server.stop()
        for socket in idle {
            // Well within the server's 30 s idle timeout, which would close them too.
            var timeout = timeval(tv_sec: 5, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            var byte: UInt8 = 0
            #expect(read(socket, &byte, 1) == 0, "the server closed the connection")
        }
    }
}
