import EDM
import Foundation
import HTTPCore
import Logging
@testable import ODataHTTP
import ODataSerialization
import ODataStore
import PostgresStore
import SQLiteStore

/// A real gateway for one test: a fresh SQLite file (or, with `engine: .postgresql`, a fresh
/// PostgreSQL database, `PostgresTestDatabase`) seeded from a seed folder, served by the
/// libmicrohttpd server on an ephemeral loopback port.
final class TestGateway: @unchecked Sendable {
    /// The storage engine under the gateway: suites that test the service take it as an argument.
    enum Engine: String, CustomStringConvertible, Sendable {
        case sqlite, postgresql
        var description: String { rawValue }
    }

    /// SQLite, and PostgreSQL when the suite has a server (or must have one: then its absence fails).
    static let engines: [Engine] = PostgresTestDatabase.serverURL != nil || PostgresTestDatabase.isRequired
        ? [.sqlite, .postgresql] : [.sqlite]

    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let carDealerSchema = repositoryRoot.appendingPathComponent("Schema/CarDealer.edmx")
    static let carDealerSeed = repositoryRoot.appendingPathComponent("SeedData")
    static let fixtures = repositoryRoot.appendingPathComponent("Tests/GatewayTests/Fixtures")

    let model: EntityModel
    let directory: URL
    let databasePath: String
    let server: HTTPServer
    let service: ODataService
    let port: UInt16
    /// The access rules in force, when the gateway was made with an access file.
    let access: AccessControl?
    var accessFilePath: String { directory.appendingPathComponent("access.json").path }
    let engine: Engine
    /// The PostgreSQL database under a `.postgresql` gateway, dropped with it.
    let postgres: PostgresTestDatabase?
    /// The store of a `.postgresql` gateway, whose reader connections' read scopes it tallies.
    let postgresStore: PostgresStore?

    var root: String { "http://127.0.0.1:\(port)/CarDealer.svc/" }

    init(engine: Engine = .sqlite, schema: URL = TestGateway.carDealerSchema, seed: URL? = TestGateway.carDealerSeed,
         access accessFile: AccessFile? = nil,
         configure: (inout ODataService.Configuration) -> Void = { _ in }) throws {
        model = try ModelLoader.load(contentsOf: schema)
        self.engine = engine
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("test.sqlite").path
        var configuration = ODataService.Configuration()
        configure(&configuration)
        var logger = Logger(label: "test-gateway")
        logger.logLevel = .critical
        if let accessFile {
            let path = directory.appendingPathComponent("access.json").path
            try accessFile.write(path: path)
            access = try AccessControl(path: path, schema: schema, model: model)
        } else {
            access = nil
        }
        switch engine {
        case .sqlite:
            postgres = nil
            postgresStore = nil
            let database = try Database(path: databasePath)
            try database.configureForService()
            try SchemaBuilder(model: model, dialect: SQLiteDialect()).createSchema(in: database)
            if let seed { try SeedLoader(model: model).load(from: seed, into: database) }
            service = try ODataService(model: model, store: SQLiteStore(path: databasePath), configuration: configuration, logger: logger, access: access)
        case .postgresql:
            let postgres = try PostgresTestDatabase()
            self.postgres = postgres
            let connection = try postgres.connect()
            let schema = PostgresSchema(model: model)
            try schema.createSchema(on: connection)
            if let seed { try SeedLoader(model: model).load(from: seed, into: connection) }
            try schema.advanceIdentities(on: connection)
            let store = try PostgresStore(url: postgres.url)
            postgresStore = store
            service = try ODataService(model: model, store: store, configuration: configuration, logger: logger, access: access)
        }
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.configureForODataService()
        serverConfiguration.port = 0
        serverConfiguration.threads = 2
        serverConfiguration.maxBodySize = 64 * 1024
        serverConfiguration.recordsClientAddress = accessFile != nil || configuration.rateLimit != nil
        let service = self.service
        server = HTTPServer(configuration: serverConfiguration) { service.handle($0) }
        port = try server.start()
    }

    deinit {
        server.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    /// Sends a request whose target is relative to the service root (`Person(1)`), or absolute (`/x`).
    func request(_ method: String = "GET", _ target: String, headers: [String: String] = ["Accept": "application/json"],
                 body: [UInt8] = []) throws -> RawHTTPResponse {
        let path = target.hasPrefix("/") ? target : "/CarDealer.svc/" + target
        return try RawHTTPClient.send(port: port, method: method, target: path, headers: headers, body: body)
    }

    func get(_ target: String, accept: String = "application/json") throws -> RawHTTPResponse {
        try request("GET", target, headers: ["Accept": accept])
    }

    /// Percent-encodes every character but the unreserved ones.
    static func percentEncoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet(charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~"))!
    }

    /// `Set?$a=x y&$b=z` with each option value percent-encoded.
    static func encodeQuery(_ target: String) -> String {
        guard let mark = target.firstIndex(of: "?") else { return target }
        let pairs = target[target.index(after: mark)...].split(separator: "&").map { pair -> String in
            guard let equals = pair.firstIndex(of: "=") else { return String(pair) }
            return pair[..<equals] + "=" + percentEncoded(String(pair[pair.index(after: equals)...]))
        }
        return target[..<mark] + "?" + pairs.joined(separator: "&")
    }

    /// A separate connection to the gateway's database, whichever the engine, for setting up
    /// rows and checking what the gateway wrote.
    func openConnection() throws -> any SQLConnection {
        if let postgres { return try postgres.connect() }
        return try openDatabase()
    }

    /// A separate connection to the same database file, for checking what the gateway wrote.
    func openDatabase(trace: ((String) -> Void)? = nil) throws -> Database { try Database(path: databasePath, trace: trace) }
}
