import EDM
import Foundation
import Logging
import ODataHTTP
import ODataSerialization
import ODataStore
import Testing

/// Each server thread holds its own service and SQLite connection (`ServicePerThread`).
/// Stopping the server ends the threads, and must close those connections: the last one to
/// close checkpoints the WAL and removes it, which shows that none was left open.
@Suite struct ServerLifecycleTests {
    @Test func stoppingTheServerClosesEveryConnection() throws {
        let model = try ModelLoader.load(contentsOf: TestGateway.carDealerSchema)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        do {
            let database = try Database(path: path)
            try database.configureForService()
            try SchemaBuilder(model: model).createSchema(in: database)
            try SeedLoader(model: model).load(from: TestGateway.carDealerSeed, into: database)
        }

        var logger = Logger(label: "lifecycle-test")
        logger.logLevel = .critical
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        var service: ServicePerThread? = ServicePerThread(model: model, databasePath: path, configuration: ODataService.Configuration(), logger: logger)
        var server: HTTPServer? = HTTPServer(configuration: configuration) { [service] in service!.handle($0) }
        let port = try #require(server).start()
        for _ in 0..<20 {
            let response = try RawHTTPClient.send(port: port, target: "/CarDealer.svc/Person(1)", headers: ["Accept": "application/json"])
            #expect(response.status == 200)
        }
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the workers' connections are open")

        server?.stop()
        server = nil
        service = nil
        #expect(!FileManager.default.fileExists(atPath: path + "-wal"), "every worker's connection was closed")
    }
}
