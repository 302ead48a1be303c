import Foundation
import HTTPCore
@testable import ODataHTTP
import ODataStore
import SQLiteStore
import Testing

/// A response with a hold (a write waiting for its commit) parks its connection, not its
/// thread: the server answers other connections meanwhile, sends the response (or the hold's
/// replacement) once released, and stops cleanly with writes in flight.
@Suite struct ResponseHoldTests {
    /// A hold the test releases by hand.
    final class ManualHold: ResponseHold, @unchecked Sendable {
        private let lock = NSLock()
        private var release: (@Sendable (HTTPResponse?) -> Void)?
        let registered = DispatchSemaphore(value: 0)

        func whenReleased(_ release: @escaping @Sendable (HTTPResponse?) -> Void) {
            lock.withLock { self.release = release }
            registered.signal()
        }

        func fire(_ replacement: HTTPResponse?) {
            lock.withLock { release }?(replacement)
        }
    }

    /// A server on a free port that answers 200 with the request's target, held by `hold`
    /// when `isHeld` says so.
    private func startServer(threads: Int = 2, hold: ManualHold,
                             isHeld: @escaping @Sendable (HTTPRequest) -> Bool = { _ in true }) throws -> (HTTPServer, UInt16) {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = threads
        let server = HTTPServer(configuration: configuration) { request in
            var response = HTTPResponse(status: 200, body: Array(request.target.utf8))
            if isHeld(request) { response.hold = hold }
            return response
        }
        return (server, try server.start())
    }

    /// One worker thread: a held request on one connection, then a plain one on another, which
    /// is answered while the first stays parked.
    @Test func aParkedConnectionLeavesItsThreadFree() throws {
        let hold = ManualHold()
        let (server, port) = try startServer(threads: 1, hold: hold) { $0.target == "/held" }
        defer { server.stop() }

        let heldAnswer = Answer()
        let heldClient = Thread { heldAnswer.set(Result { try RawHTTPClient.send(port: port, target: "/held") }) }
        heldClient.start()
        #expect(hold.registered.wait(timeout: .now() + 10) == .success, "the held request reached the handler")

        let plain = try RawHTTPClient.send(port: port, target: "/plain")
        #expect(plain.status == 200 && plain.body == Array("/plain".utf8))
        #expect(heldAnswer.value == nil, "the held response is not sent before its hold is released")

        hold.fire(nil)
        let held = try #require(heldAnswer.wait()).get()
        #expect(held.status == 200 && held.body == Array("/held".utf8))
    }

    @Test func aHoldMayReplaceItsResponse() throws {
        let hold = ManualHold()
        let (server, port) = try startServer(hold: hold)
        defer { server.stop() }
        let answer = Answer()
        Thread { answer.set(Result { try RawHTTPClient.send(port: port, method: "POST", target: "/x") }) }.start()
        #expect(hold.registered.wait(timeout: .now() + 10) == .success)
        hold.fire(HTTPResponse(status: 503, body: Array("not saved".utf8)))
        let response = try #require(answer.wait()).get()
        #expect(response.status == 503 && response.body == Array("not saved".utf8))
    }

    /// `stop` waits for a parked connection's response to be sent: libmicrohttpd aborts the
    /// process when it stops with a connection suspended.
    @Test func stopWaitsForAParkedConnection() throws {
        let hold = ManualHold()
        let (server, port) = try startServer(hold: hold)
        let answer = Answer()
        Thread { answer.set(Result { try RawHTTPClient.send(port: port, target: "/held") }) }.start()
        #expect(hold.registered.wait(timeout: .now() + 10) == .success)

        let stopped = DispatchSemaphore(value: 0)
        Thread {
            server.stop()
            stopped.signal()
        }.start()
        #expect(stopped.wait(timeout: .now() + 0.3) == .timedOut, "stop waits while the connection is parked")
        hold.fire(nil)
        #expect(stopped.wait(timeout: .now() + 10) == .success)
        let response = try #require(answer.wait()).get()
        #expect(response.status == 200 && response.body == Array("/held".utf8), "the parked response was sent before the stop")
    }

    /// Starts `clients` threads that each POST up to `count` people named `lastName`, one after
    /// another, and stop at the first answer that is not a 201; `created` hears each Location.
    private func postPeople(to gateway: TestGateway, lastName: String, clients: Int, count: Int,
                            created: @escaping @Sendable (String) -> Void) -> DispatchGroup {
        let running = DispatchGroup()
        for client in 0..<clients {
            running.enter()
            Thread {
                defer { running.leave() }
                for n in 0..<count {
                    let body = Array(#"{"firstName":"C\#(client)N\#(n)","lastName":"\#(lastName)","createDate":"\/Date(0)\/"}"#.utf8)
                    guard let response = try? gateway.request("POST", "Person", headers: ["Content-Type": "application/json", "Accept": "application/json"], body: body),
                          response.status == 201, let location = response.header("Location") else { return }
                    created(location)
                }
            }.start()
        }
        return running
    }

    /// A 201 means committed: the row is there for any other connection the moment the
    /// answer arrives. (With the hold ignored, most of these reads missed their row here.)
    @Test func anAcknowledgedWriteIsAlreadyCommitted() throws {
        let gateway = try TestGateway()
        let created = Answers()
        let unseen = Answers()
        postPeople(to: gateway, lastName: "Acknowledged", clients: 4, count: 50) { location in
            created.append(location)
            let key = location.split(separator: "(").last?.dropLast() ?? ""
            let rows = try? gateway.openDatabase().rows(#"SELECT count(*) FROM "Person" WHERE "personID" = \#(key)"#)
            if rows != [[.integer(1)]] { unseen.append(location) }
        }.wait()
        #expect(created.values.count == 200)
        let missing = unseen.values
        #expect(missing.count == 0, "answered 201 but not committed: \(missing.prefix(5))")
    }

    /// `stop` waits for parked connections (libmicrohttpd aborts the process when it stops with
    /// one suspended), and a write answered 201 before the stop is in the database after it.
    @Test func stoppingWithWritesInFlight() throws {
        let gateway = try TestGateway()
        let created = Answers()
        let running = postPeople(to: gateway, lastName: "InFlight", clients: 8, count: 10_000) { created.append($0) }
        Thread.sleep(forTimeInterval: 0.5)
        gateway.server.stop()
        running.wait()

        let acknowledged = created.values
        #expect(acknowledged.count > 8, "the clients wrote before the stop")
        let database = try gateway.openDatabase()
        let stored = try database.rows(#"SELECT "personID" FROM "Person" WHERE "lastName" = 'InFlight'"#)
        let storedIDs = Set(stored.compactMap { row -> String? in
            guard case .integer(let id) = row[0] else { return nil }
            return "Person(\(id))"
        })
        let missing = acknowledged.filter { location in !storedIDs.contains(location.split(separator: "/").last.map(String.init) ?? location) }
        #expect(missing.isEmpty, "acknowledged but not stored: \(missing.prefix(5))")
    }
}

/// One client's outcome, handed from its thread to the test.
private final class Answer: @unchecked Sendable {
    private let lock = NSLock()
    private let done = DispatchSemaphore(value: 0)
    private var result: Result<RawHTTPResponse, Error>?

    func set(_ result: Result<RawHTTPResponse, Error>) {
        lock.withLock { self.result = result }
        done.signal()
    }

    var value: Result<RawHTTPResponse, Error>? { lock.withLock { result } }

    func wait() -> Result<RawHTTPResponse, Error>? {
        _ = done.wait(timeout: .now() + 30)
        return value
    }
}

/// Locations collected by several client threads.
private final class Answers: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [String] = []

    func append(_ value: String) { lock.withLock { storage.append(value) } }
    var values: [String] { lock.withLock { storage } }
}
