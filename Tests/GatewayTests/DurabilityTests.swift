import Foundation
import ODataStore
import SQLiteStore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A write answered with 2xx survives `kill -9` of the gateway: concurrent writers run against
/// the real `dealer-gateway` process, which is killed with SIGKILL mid-load and restarted on the
/// same file (or PostgreSQL database). Every acknowledged write must be there, no write may be
/// half there, and SQLite's integrity and foreign-key checks must pass.
@Suite(.serialized) struct DurabilityTests {
    /// `dealer-gateway serve` on a database file, as a child process.
    final class GatewayProcess {
        let process = Process()
        let port: UInt16

        /// - Parameter storage: `--db FILE` or `--database URL`.
        init(storage: [String], output: URL) throws {
            process.executableURL = try DurabilityTests.executable()
            process.arguments = ["serve", "--schema", TestGateway.carDealerSchema.path, "--seed", TestGateway.carDealerSeed.path]
                + storage + ["--port", "0", "--threads", "4", "--log-level", "warning"]
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            process.standardOutput = try FileHandle(forWritingTo: output)
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(60)
            while true {
                let text = String(decoding: (try? Data(contentsOf: output)) ?? Data(), as: UTF8.self)
                if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Serving http://127.0.0.1:") }),
                   let port = UInt16(line.dropFirst("Serving http://127.0.0.1:".count).prefix { $0.isNumber }) {
                    self.port = port
                    return
                }
                guard process.isRunning, Date() < deadline else { throw TestFailure("dealer-gateway did not start: \(text)") }
                Thread.sleep(forTimeInterval: 0.05)
            }
        }

        func killHard() {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }

        func stop() {
            guard process.isRunning else { return }
            process.terminate()
            process.waitUntilExit()
        }

        deinit { if process.isRunning { killHard() } }
    }

    /// The gateway executable, built with the tests: next to the test bundle, or in the
    /// repository's debug build folder.
    static func executable() throws -> URL {
        let candidates = [
            URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("dealer-gateway"),
            TestGateway.repositoryRoot.appendingPathComponent(".build/debug/dealer-gateway"),
        ]
        guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) }) else {
            throw TestFailure("dealer-gateway is not built (looked at \(candidates.map(\.path)))")
        }
        return found
    }

    /// What the writers were told, and what they were sending when the gateway died.
    final class Ledger: @unchecked Sendable {
        private let lock = NSLock()
        /// Created people (key and name) answered with 201.
        private(set) var acknowledgedPeople: [(id: Int, name: String)] = []
        /// Per writer: the car model last acknowledged, and the one in flight.
        private(set) var acknowledgedModel: [Int: String] = [:]
        private(set) var pendingModel: [Int: String] = [:]

        func created(_ id: Int, _ name: String) { lock.withLock { acknowledgedPeople.append((id, name)) } }
        func sending(model: String, writer: Int) { lock.withLock { pendingModel[writer] = model } }
        func updated(model: String, writer: Int) { lock.withLock { acknowledgedModel[writer] = model } }
        var snapshot: (people: [(id: Int, name: String)], models: [Int: String], pending: [Int: String]) {
            lock.withLock { (acknowledgedPeople, acknowledgedModel, pendingModel) }
        }
    }

    @Test(arguments: TestGateway.engines) func acknowledgedWritesSurviveKillNine(engine: TestGateway.Engine) throws {
        signal(SIGPIPE, SIG_IGN)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("durability-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let database = directory.appendingPathComponent("cardealer.sqlite")
        let postgres = engine == .postgresql ? try PostgresTestDatabase() : nil
        let storage = postgres.map { ["--database", $0.url] } ?? ["--db", database.path]
        let gateway = try GatewayProcess(storage: storage, output: directory.appendingPathComponent("first.out"))

        // Writers: each creates people with two cars in one deep insert (three rows: a write
        // that could be half-applied), and renames a car of its own after every person.
        let ledger = Ledger()
        let writers = 4
        let group = DispatchGroup()
        let port = gateway.port
        for writer in 0..<writers {
            group.enter()
            Thread.detachNewThread {
                defer { group.leave() }
                var n = 0
                while true {
                    n += 1
                    let name = "durable-\(writer)-\(n)"
                    let body = #"{"firstName":"W","lastName":"\#(name)","createDate":"\/Date(0)\/","PersonCar":["#
                        + #"{"createStamp":"\/Date(0)\/","Car":{"__metadata":{"uri":"Car(1)"}}},"#
                        + #"{"createStamp":"\/Date(0)\/","Car":{"__metadata":{"uri":"Car(2)"}}}]}"#
                    guard let created = try? RawHTTPClient.send(port: port, method: "POST", target: "/CarDealer.svc/Person",
                                                                headers: ["Content-Type": "application/json", "Accept": "application/json"],
                                                                body: Array(body.utf8)) else { return }
                    guard created.status == 201, let location = created.header("Location"),
                          let id = Int(location.split(separator: "(").last?.dropLast() ?? "") else { return }
                    ledger.created(id, name)

                    let model = "model-\(writer)-\(n)"
                    ledger.sending(model: model, writer: writer)
                    guard let updated = try? RawHTTPClient.send(port: port, method: "MERGE", target: "/CarDealer.svc/Car(\(writer + 10))",
                                                                headers: ["Content-Type": "application/json"],
                                                                body: Array(#"{"model":"\#(model)"}"#.utf8)),
                          updated.status == 204 else { return }
                    ledger.updated(model: model, writer: writer)
                }
            }
        }
        // Let the load build up, then kill the gateway in the middle of it.
        let start = Date()
        while ledger.snapshot.people.count < 150 && Date().timeIntervalSince(start) < 30 { Thread.sleep(forTimeInterval: 0.01) }
        gateway.killHard()
        #expect(group.wait(timeout: .now() + 60) == .success, "the writers stop once the gateway is gone")
        let (people, models, pending) = ledger.snapshot
        #expect(people.count >= 150, "the load ran: \(people.count) people acknowledged")

        // Restart on the same file: every acknowledged write is there.
        let restarted = try GatewayProcess(storage: storage, output: directory.appendingPathComponent("second.out"))
        defer { restarted.stop() }
        for person in people {
            let response = try RawHTTPClient.send(port: restarted.port, target: "/CarDealer.svc/Person(\(person.id))?$expand=PersonCar",
                                                  headers: ["Accept": "application/json"])
            #expect(response.status == 200, "Person(\(person.id)) was acknowledged but is gone")
            let entity = try response.d() as? [String: Any]
            #expect(entity?["lastName"] as? String == person.name)
            #expect((entity?["PersonCar"] as? [Any])?.count == 2)
        }
        for writer in 0..<writers {
            let car = try RawHTTPClient.send(port: restarted.port, target: "/CarDealer.svc/Car(\(writer + 10))", headers: ["Accept": "application/json"])
            let model = (try car.d() as? [String: Any])?["model"] as? String
            if let acknowledged = models[writer] {
                // The acknowledged value, or the later one in flight when the gateway died.
                #expect(model == acknowledged || model == pending[writer], "Car(\(writer + 10)).model is \(model ?? "nil")")
            }
        }

        // No write is half there: every person the writers made has both cars, acknowledged or not.
        let check: any SQLConnection = try postgres?.connect() ?? Database(path: database.path, readOnly: true)
        let partial = try check.rows("""
            SELECT p."personID", count(pc."personCarID") FROM "Person" p LEFT JOIN "PersonCar" pc ON pc."personID" = p."personID"
            WHERE p."lastName" LIKE 'durable-%' GROUP BY p."personID" HAVING count(pc."personCarID") <> 2
            """)
        #expect(partial.isEmpty, "half-applied deep inserts: \(partial)")
        let stored = try check.rows("SELECT count(*) FROM \"Person\" WHERE \"lastName\" LIKE 'durable-%'")
        if case .integer(let count)? = stored.first?.first {
            #expect(Int(count) >= people.count && Int(count) <= people.count + writers, "at most one unacknowledged insert per writer")
        }
        // PostgreSQL enforces its foreign keys and recovers itself; SQLite's file is checked.
        guard engine == .sqlite else { return }
        #expect(try check.rows("PRAGMA integrity_check") == [[.text("ok")]])
        #expect(try check.rows("PRAGMA foreign_key_check").isEmpty)
        #expect(try check.rows("PRAGMA journal_mode") == [[.text("wal")]])
    }
}
