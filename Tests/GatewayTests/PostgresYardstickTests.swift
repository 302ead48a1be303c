import Foundation
import PostgresStore
import Testing

/// The benchmark bounds each PostgreSQL read by its statements alone: the statements the gateway
/// sent the server for that read, taken from the server's log, run by pgbench with the same
/// parameters (`Benchmarks/postgres.py`). The bound means something only while the capture finds
/// the statements of the read asked for, with its values, and pgbench runs them as the gateway
/// sends them. Here the rows of each captured statement, run again, must be the entities the
/// gateway answered. The capture turns on the server's statement log for a moment and keeps the
/// statements of the gateway's database only, so other tests on the same server do not disturb
/// it.
@Suite(PostgresTestDatabase.enabled) struct PostgresYardstickTests {
    struct Capture: Decodable {
        struct Statement: Decodable {
            let sql: String
            let parameters: [String: String]
        }
        let statements: [Statement]
        /// The first column of each statement's rows.
        let firstColumns: [[String]]
        let script: String
        let readsPerSecond: Double
    }

    @Test func theStatementsAloneAreTheGatewaysReadWithItsValues() throws {
        let database = try PostgresTestDatabase()
        let server = try #require(PostgresTestDatabase.serverURL)
        // scripts/postgres-cluster keeps the server's log beside its data folder.
        let dataFolder = try database.connect().rows("SHOW data_directory").first?.first
        guard case .text(let dataPath)? = dataFolder else { throw TestFailure("no data_directory: \(String(describing: dataFolder))") }
        let logPath = URL(fileURLWithPath: dataPath).deletingLastPathComponent().appendingPathComponent("server.log").path
        try #require(FileManager.default.isReadableFile(atPath: logPath),
                     "the server's log \(logPath) is not readable: this test needs the cluster scripts/postgres-cluster starts")
        let gateway = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData",
                                                     "--database", database.url, "--port", "0", "--threads", "2"])
        defer { _ = gateway.stop() }

        /// The captured read of `target`, and the `d` of the gateway's answer to it.
        func capture(_ target: String) throws -> (Capture, [String: Any]) {
            let url = "http://127.0.0.1:\(gateway.port)/CarDealer.svc/" + target
            let printed = try ChildProcess.output(of: "python3", ["Benchmarks/postgres.py", "capture", "--server", server,
                                                                 "--database", database.name, "--log", logPath,
                                                                 "--url", url])
            let captured = try JSONDecoder().decode(Capture.self, from: Data(printed.utf8))
            let answer = try RawHTTPClient.send(port: gateway.port, target: "/CarDealer.svc/" + target,
                                                headers: ["Accept": "application/json"])
            #expect(answer.status == 200, "\(target): \(answer.text)")
            let answered = try JSONSerialization.jsonObject(with: Data(answer.text.utf8)) as? [String: Any]
            // A set without $inlinecount answers `d` as the array of its entities.
            let d = try #require((answered?["d"] as? [String: Any]) ?? (answered?["d"]).map { ["results": $0] },
                                 "\(target): \(answer.text)")
            #expect(captured.readsPerSecond > 0, "\(target)")
            return (captured, d)
        }
        func keys(_ value: Any?, _ name: String) -> [String] {
            let entities = (value as? [[String: Any]]) ?? ((value as? [String: Any])?["results"] as? [[String: Any]]) ?? []
            return entities.map { "\($0[name] ?? "")" }
        }

        // One statement, sent alone.
        let (byKey, person) = try capture("Person(7)")
        #expect(byKey.statements.map(\.parameters) == [["1": "7"]])
        #expect(byKey.statements.first?.sql.contains("FROM \"Person\"") == true)
        #expect(byKey.firstColumns == [["7"]] && "\(person["personID"] ?? "")" == "7")
        #expect(!byKey.script.contains("\\startpipeline"))

        // Two statements in a snapshot, sent in one pipeline: the person, then its cars.
        let (expansion, expanded) = try capture("Person(3)?$expand=PersonCar,PersonCar/Car")
        #expect(expansion.statements.count == 4)
        #expect(expansion.statements.first?.sql.hasPrefix("BEGIN") == true && expansion.statements.last?.sql == "COMMIT")
        #expect(expansion.statements.dropFirst().dropLast().map(\.parameters) == [["1": "3"], ["1": "3"]])
        let cars = keys(expanded["PersonCar"], "personCarID")
        #expect(!cars.isEmpty)
        #expect(expansion.firstColumns == [[], ["3"], cars, []])
        #expect(expansion.script.hasPrefix("\\startpipeline\nBEGIN") && expansion.script.hasSuffix("COMMIT;\n\\endpipeline\n"))

        // A filtered page and its count, with a text value.
        let (counted, page) = try capture("Person?$filter=lastName%20eq%20'Murphy'&$orderby=firstName&$top=1&$inlinecount=allpages")
        #expect(counted.statements.dropFirst().dropLast().map { $0.parameters["1"] } == ["Murphy", "Murphy"])
        #expect(counted.firstColumns == [[], keys(page, "personID"), ["\(page["__count"] ?? "")"], []])
        #expect(keys(page, "personID").count == 1 && "\(page["__count"] ?? "")" == "2")

        // A join through two navigations, the benchmark's heaviest read.
        let (joined, maintenance) = try capture("PersonCarMaintenance?$filter=PersonCar/Car/make%20eq%20'Ford'&$top=5&$expand=Maintenance")
        #expect(joined.statements.count == 1 && joined.statements[0].parameters == ["1": "Ford", "2": "5"])
        #expect(joined.firstColumns == [keys(maintenance, "personCarMaintenanceID")])
        #expect(keys(maintenance, "personCarMaintenanceID").count == 5)
    }
}
