import Foundation
import PostgresStore
import Testing

/// `dealer-gateway init/serve --database` as a user runs them: an empty database gets the
/// tables and the seed (SeedData unless told otherwise) once; a database whose tables differ from the
/// schema is refused at start, with each difference named, and left as it was.
@Suite(PostgresTestDatabase.enabled) struct PostgresGatewayProcessTests {
    static func run(_ arguments: [String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = GatewayProcess.executable
        process.arguments = arguments
        process.currentDirectoryURL = TestGateway.repositoryRoot
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    @Test func initCreatesAndSeedsOnceThenServeFindsTheData() throws {
        let database = try PostgresTestDatabase()
        let initialize = ["init", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--database", database.url]
        let first = try Self.run(initialize)
        #expect(first.status == 0, "\(first.output)")
        #expect(first.output.contains("Initialized postgresql://"), "\(first.output)")
        let connection = try database.connect()
        #expect(try connection.rows("SELECT count(*) FROM \"Person\"") == [[.integer(60)]])
        // A second init finds the tables and loads nothing again.
        #expect(try Self.run(initialize).status == 0)
        #expect(try connection.rows("SELECT count(*) FROM \"Person\"") == [[.integer(60)]])

        let gateway = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--database", database.url,
                                                     "--port", "0", "--threads", "2"])
        defer { _ = gateway.stop() }
        #expect(try gateway.get("Person/$count").text == "60")
        #expect(try gateway.get("Person(1)?$expand=PersonCar/Car").status == 200)
    }

    @Test func initSeedsFromSeedDataByDefaultUnlessToldNot() throws {
        let seeded = try PostgresTestDatabase()
        let first = try Self.run(["init", "--schema", "Schema/CarDealer.edmx", "--database", seeded.url])
        #expect(first.status == 0, "\(first.output)")
        #expect(try seeded.connect().rows("SELECT count(*) FROM \"Person\"") == [[.integer(60)]])

        let empty = try PostgresTestDatabase()
        let bare = try Self.run(["init", "--schema", "Schema/CarDealer.edmx", "--no-seed", "--database", empty.url])
        #expect(bare.status == 0, "\(bare.output)")
        #expect(try empty.connect().rows("SELECT count(*) FROM \"Person\"") == [[.integer(0)]])
    }

    @Test func aDatabaseThatDiffersIsRefusedAtStartAndKept() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute("CREATE TABLE \"Person\" (\"personID\" INTEGER PRIMARY KEY, \"firstName\" INTEGER); INSERT INTO \"Person\" VALUES (1, 2)")
        let serve = try Self.run(["serve", "--schema", "Schema/CarDealer.edmx", "--database", database.url, "--port", "0"])
        #expect(serve.status != 0)
        #expect(serve.output.contains("column \"Person\".\"firstName\" is integer, the schema needs text"), "\(serve.output)")
        #expect(serve.output.contains("table \"Car\" is missing"), "\(serve.output)")
        #expect(!serve.output.contains("Serving"))
        #expect(try connection.rows("SELECT \"firstName\" FROM \"Person\"") == [[.integer(2)]])
        #expect(try connection.rows("SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()") == [[.integer(1)]])
    }

    @Test func anUnreachableServerIsAClearErrorAtStart() throws {
        let serve = try Self.run(["serve", "--database", "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2", "--port", "0"])
        #expect(serve.status != 0)
        #expect(serve.output.contains("127.0.0.1"), "\(serve.output)")
        #expect(!serve.output.contains("Serving"))
    }
}
