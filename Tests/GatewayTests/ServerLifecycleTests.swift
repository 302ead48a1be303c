import EDM
import Foundation
import HTTPCore
import Logging
import ODataHTTP
import ODataSerialization
import ODataStore
import SQLiteStore
import Testing

/// Each server thread holds its own SQLite connection, in its `WorkerContext`.
/// Stopping the server ends the threads, and must close those connections: no file of the
/// database stays open in this process. (Whether the WAL file is gone does not tell: two
/// connections closing at once can each see the other open, and both leave it.)
@Suite struct ServerLifecycleTests {
    /// The files under `directory` that this process holds open, from /proc/self/fd.
    private func openFiles(under directory: String) -> [String] {
        let descriptors = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        return descriptors.compactMap { descriptor in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/" + descriptor),
                  target.hasPrefix(directory) else { return nil }
            return target
        }
    }

    @Test func stoppingTheServerClosesEveryConnection() throws {
        let model = try ModelLoader.load(contentsOf: TestGateway.carDealerSchema)
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lifecycle-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        do {
            let database = try Database(path: path)
            try database.configureForService()
            try SchemaBuilder(model: model, dialect: SQLiteDialect()).createSchema(in: database)
            try SeedLoader(model: model).load(from: TestGateway.carDealerSeed, into: database)
        }

        var logger = Logger(label: "lifecycle-test")
        logger.logLevel = .critical
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        var service: ODataService? = ODataService(model: model, store: SQLiteStore(path: path), configuration: ODataService.Configuration(), logger: logger)
        var server: HTTPServer? = HTTPServer(configuration: configuration) { [service] in service!.handle($0) }
        let port = try #require(server).start()
        // A collection's statement is also held by the memo of its target (`QueryMemo`).
        for target in Array(repeating: ["Person(1)", "Person?$top=2&$inlinecount=allpages"], count: 10).joined() {
            let response = try RawHTTPClient.send(port: port, target: "/CarDealer.svc/" + target, headers: ["Accept": "application/json"])
            #expect(response.status == 200)
        }
        #expect(openFiles(under: directory.path).count >= 2, "the workers' connections are open")

        server?.stop()
        server = nil
        service = nil
        #expect(openFiles(under: directory.path).isEmpty, "every worker's connection was closed")
    }
}
