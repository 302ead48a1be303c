import Foundation
import HTTPCore
@testable import ODataHTTP
import Synchronization
import Testing

/// One service, over one model, serves every server thread; what a thread keeps between
/// requests (reader, parse cache, last service root) is its own `WorkerContext`, used by no
/// other thread.
@Suite struct WorkerContextTests {
    /// Many connections at once over the gateway's two workers, each client naming a Host of its
    /// own, so that a worker's cached service root changes from request to request: a context
    /// shared by two threads would, sooner or later, write one client's host into another's
    /// response.
    @Test func eachWorkerServesWithItsOwnContextAndTheOneModel() throws {
        let gateway = try TestGateway()
        let clients = 8, requestsEach = 15
        let failures = Mutex<[String]>([])
        let done = DispatchGroup()
        for client in 0..<clients {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    let fd = try RawHTTPClient.connect(port: gateway.port)
                    defer { close(fd) }
                    let host = "client-\(client).example:80"
                    for request in 0..<requestsEach {
                        let key = 1 + (client + request) % 3
                        let response = try RawHTTPClient.exchangeKeepingAlive(
                            fd, method: "GET", target: "/CarDealer.svc/Person(\(key))",
                            fields: [("Host", host), ("Accept", "application/json")])
                        let uri = (try response.d() as? [String: Any])
                            .flatMap { $0["__metadata"] as? [String: Any] }?["uri"] as? String
                        if response.status != 200 || uri != "http://\(host)/CarDealer.svc/Person(\(key))" {
                            failures.withLock { $0.append("client \(client): \(response.status) \(uri ?? "no uri")") }
                        }
                    }
                } catch {
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }
        }
        done.wait()
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")

        // The connections were dealt to both workers in turn: one context each, no more (not one
        // per connection), on two different threads, and together they served every request.
        let records = gateway.service.workerRecords
        #expect(records.count == 2)
        if records.count == 2 {
            #expect(pthread_equal(records[0].thread, records[1].thread) == 0, "two workers, two threads")
        }
        #expect(records.allSatisfy { $0.requestsServed > 0 })
        #expect(records.map(\.requestsServed).reduce(0, +) == clients * requestsEach)
        // Both workers serve from the model the service was given, loaded once from the EDMX.
        #expect(gateway.service.model === gateway.model)
    }

    /// A thread that calls the service directly gets a context of its own, made once, however
    /// many requests it sends.
    @Test func aThreadKeepsOneContextAcrossItsRequests() throws {
        let gateway = try TestGateway()
        let request = HTTPRequest(method: "GET", target: "/CarDealer.svc/Person(1)", headers: ["Accept": "application/json", "Host": "127.0.0.1"])
        let before = gateway.service.workerRecords.count
        let served = Mutex<[Int]>([])
        let done = DispatchGroup()
        done.enter()
        Thread.detachNewThread {
            defer { done.leave() }
            for _ in 0..<5 { served.withLock { $0.append(gateway.service.handle(request).status) } }
        }
        done.wait()
        #expect(served.withLock { $0 } == Array(repeating: 200, count: 5))
        let made = gateway.service.workerRecords.dropFirst(before)
        #expect(made.count == 1)
        #expect(made.first?.requestsServed == 5)
    }
}
