import Foundation
import Testing

/// The `dealer-gateway` executable as a user runs it: first run creates and seeds the file,
/// later runs keep the data, and SIGTERM/SIGINT stop it cleanly.
@Suite struct GatewayProcessTests {
    @Test func firstRunSeedsThenServesAndStopsCleanly() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-process-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("nested/cardealer.sqlite").path
        let arguments = ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--db", db, "--port", "0", "--threads", "2"]

        let first = try GatewayProcess(arguments: arguments)
        #expect(FileManager.default.fileExists(atPath: db))
        let person = try first.get("Person(1)?$expand=PersonCar,PersonCar/Car")
        #expect(person.status == 200)
        #expect(try (person.d() as! [String: Any])["lastName"] as? String == "Samson")
        // Keep-alive clients and many requests on a pool of two threads.
        for id in 1...50 { #expect(try first.get("Person(\(id % 60 + 1))").status == 200) }
        #expect(first.stop(signal: SIGTERM) == 0)

        // A second run finds the database and does not seed it again.
        let second = try GatewayProcess(arguments: arguments)
        #expect(try second.get("Person/$count").text == "60")
        #expect(second.stop(signal: SIGINT) == 0)
    }

    /// `--log-level debug` writes an access line per request, answered or refused; `info` none.
    @Test(arguments: ["debug", "info"]) func theAccessLogFollowsTheLogLevel(level: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-log-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("stderr.log")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        let logHandle = try FileHandle(forWritingTo: log)
        let gateway = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData",
                                                     "--db", folder.appendingPathComponent("db.sqlite").path, "--port", "0",
                                                     "--log-level", level],
                                         standardError: logHandle)
        #expect(try gateway.get("Person(1)").status == 200)
        #expect(try gateway.get("Person(999)").status == 404)
        #expect(gateway.stop() == 0)
        try logHandle.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        let accessLines = text.split(separator: "\n").filter { $0.contains("GET /CarDealer.svc/Person(") }
        if level == "debug" {
            #expect(accessLines.contains { $0.contains("GET /CarDealer.svc/Person(1) 200 ") }, "\(text)")
            #expect(accessLines.contains { $0.contains("GET /CarDealer.svc/Person(999) 404 ") }, "\(text)")
        } else {
            #expect(accessLines.isEmpty, "\(text)")
        }
    }

    @Test func aBrokenSchemaIsAClearErrorNotACrash() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-schema-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let schema = folder.appendingPathComponent("broken.edmx")
        let text = try String(contentsOf: TestGateway.carDealerSchema, encoding: .utf8)
            .replacingOccurrences(of: "Relationship=\"edmexampleModel.FK_PersonCar_Car\" FromRole=\"Car\"", with: "Relationship=\"edmexampleModel.Nope\" FromRole=\"Car\"")
        try text.write(to: schema, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = GatewayProcess.executable
        process.arguments = ["serve", "--schema", schema.path, "--db", folder.appendingPathComponent("x.sqlite").path, "--port", "0"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus != 0)
        let message = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(message.contains("NavigationProperty Car.PersonCar: unknown Relationship edmexampleModel.Nope"), "\(message)")
    }

    /// Runs `dealer-gateway` with `arguments` until it exits (at most 30 seconds, then it is
    /// killed and the test fails); returns its exit status and what it wrote to standard error.
    private func runToExit(_ arguments: [String]) throws -> (status: Int32, errors: String) {
        let process = Process()
        process.executableURL = GatewayProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = TestGateway.repositoryRoot
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            Issue.record("dealer-gateway \(arguments.joined(separator: " ")) was still running after 30 s")
        }
        return (process.terminationStatus, String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }

    /// A damaged database file, or a file that is no database, is refused at start with a clear
    /// message and a non-zero exit, instead of being served until a request meets the damage.
    @Test func aDamagedDatabaseIsRefusedAtStart() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-damaged-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let intact = folder.appendingPathComponent("intact.sqlite").path
        let created = try runToExit(["init", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--db", intact])
        #expect(created.status == 0, "\(created.errors)")

        // One b-tree page in the middle of the file gets a garbage header.
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: intact)))
        let pageSize = 4096
        #expect(bytes.count >= 8 * pageSize)
        let page = bytes.count / pageSize / 2
        for offset in page * pageSize..<page * pageSize + 64 { bytes[offset] = 0xAB }
        let damaged = folder.appendingPathComponent("damaged.sqlite").path
        #expect(FileManager.default.createFile(atPath: damaged, contents: Data(bytes)))
        let notADatabase = folder.appendingPathComponent("text.sqlite").path
        #expect(FileManager.default.createFile(atPath: notADatabase, contents: Data(String(repeating: "not a database\n", count: 500).utf8)))

        for (path, detail) in [(damaged, "btreeInitPage"), (notADatabase, "file is not a database")] {
            let run = try runToExit(["serve", "--schema", "Schema/CarDealer.edmx", "--db", path, "--port", "0"])
            #expect(run.status != 0)
            #expect(run.errors.contains("the database \(path) is damaged or is not an SQLite database"), "\(run.errors)")
            #expect(run.errors.contains(detail), "\(run.errors)")
            #expect(!run.errors.contains("Fatal error"), "\(run.errors)")
        }

        // The intact file is served.
        let gateway = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--db", intact, "--port", "0"])
        #expect(try gateway.get("Person/$count").text == "60")
        #expect(gateway.stop() == 0)
    }
}
