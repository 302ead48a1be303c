import ArgumentParser
import EDM
import Foundation
import Logging
import ODataHTTP
import ODataSerialization
import ODataStore
#if canImport(Glibc)
import Glibc
#endif

/// `dealer-gateway`: serves any CSDL schema as an OData V2 service over a SQLite file.
struct DealerGateway: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dealer-gateway",
        abstract: "An OData V2 gateway over SQLite, driven by a CSDL schema.",
        subcommands: [Serve.self, Initialize.self],
        defaultSubcommand: Serve.self)
}

struct DatabaseOptions: ParsableArguments {
    @Option(help: "The CSDL (EDMX) schema to serve.")
    var schema: String = "Schema/CarDealer.edmx"

    @Option(help: "The SQLite database file; created from the schema (and the seed folder) when missing.")
    var db: String = "data/cardealer.sqlite"

    func loadModel() throws -> EntityModel {
        guard FileManager.default.isReadableFile(atPath: schema) else {
            throw ValidationError("cannot read the schema file \(schema)")
        }
        do {
            return try ModelLoader.load(contentsOf: URL(fileURLWithPath: schema))
        } catch let error as ModelError {
            throw ValidationError("schema \(schema): \(error.message)")
        }
    }

    /// Opens the database, creating its tables (and seeding them) when it is new.
    func prepareDatabase(model: EntityModel, seed: String?, logger: Logger) throws {
        let url = URL(fileURLWithPath: db)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try Database(path: db)
        try database.checkIntegrity()
        try database.configureForService()
        let builder = SchemaBuilder(model: model)
        let isNew = try builder.isEmpty(database)
        try builder.createSchema(in: database)
        if isNew, let seed {
            let counts = try SeedLoader(model: model).load(from: URL(fileURLWithPath: seed), into: database)
            logger.info("seeded \(db): \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
        }
    }
}

struct Serve: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Serve the schema over HTTP (the default).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The folder of seed files (<EntitySet>.json) loaded into a new database.")
    var seed: String = "SeedData"

    @Option(help: "The address to listen on.")
    var host: String = "127.0.0.1"

    @Option(help: "The port to listen on; 0 picks a free one.")
    var port: UInt16 = 8080

    @Option(help: "The path of the service root.")
    var root: String = "/CarDealer.svc"

    @Option(help: "Worker threads, each with its own SQLite connection; the default is the number of cores.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "The server page size of entity sets whose schema sets none.")
    var pageSize: Int = 200

    @Option(help: "The largest request body accepted, in bytes.")
    var maxBodySize: Int = 10 * 1024 * 1024

    @Option(name: .customLong("mmap-mb"), help: "MiB of the database file that reads map into memory instead of reading page by page, once the file outgrows their page cache (16 MiB); 0 turns mapping off.")
    var mmapMegabytes: Int = 1024

    @Option(name: .customLong("allow-origin"), help: "An origin whose browser pages may call the service (CORS); repeat it, or give * for any.")
    var allowedOrigins: [String] = []

    @Option(help: "Log level: trace, debug (adds an access log line per request), info, notice, warning, error, critical.")
    var logLevel: String = "info"

    func validate() throws {
        guard root.hasPrefix("/"), !root.hasSuffix("/") || root == "/" else { throw ValidationError("--root must start with / and not end with /") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard pageSize >= 1 else { throw ValidationError("--page-size must be at least 1") }
        guard (0...(1 << 20)).contains(mmapMegabytes) else { throw ValidationError("--mmap-mb must be from 0 to 1048576") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level \(logLevel) is not a level") }
    }

    func run() throws {
        var logger = Logger(label: "dealer-gateway")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let model = try database.loadModel()
        try database.prepareDatabase(model: model, seed: seed, logger: logger)

        // Block the stop signals before any thread starts, so that only sigwait below sees them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        var configuration = ODataService.Configuration()
        configuration.rootPath = root == "/" ? "" : root
        configuration.defaultPageSize = pageSize
        configuration.allowedOrigins = allowedOrigins
        configuration.memoryMapSize = mmapMegabytes << 20
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.host = host
        serverConfiguration.port = port
        serverConfiguration.threads = threads
        serverConfiguration.maxBodySize = maxBodySize
        let displayHost = host.contains(":") ? "[\(host)]" : host
        configuration.fallbackHost = "\(displayHost):\(port)"
        let service = ServicePerThread(model: model, databasePath: database.db, configuration: configuration, logger: logger)
        let server = HTTPServer(configuration: serverConfiguration) { request in service.handle(request) }
        let boundPort = try server.start()
        // Written unbuffered: tests and scripts wait for this line to learn the port.
        FileHandle.standardOutput.write(Data("Serving http://\(displayHost):\(boundPort)\(configuration.rootPath)/\n".utf8))
        logger.info("serving \(database.schema) from \(database.db) with \(threads) threads")

        var received: Int32 = 0
        sigwait(&signals, &received)
        logger.info("signal \(received): stopping")
        server.stop()
        let writes = service.writeStatistics
        logger.info("committed \(writes.writesCommitted) writes in \(writes.commits) commits")
    }
}

struct Initialize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the schema's tables in a database file without serving (and without seed rows unless --seed is given).")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "A folder of seed files to load when the database is new.")
    var seed: String?

    func run() throws {
        let logger = Logger(label: "dealer-gateway")
        let model = try database.loadModel()
        try database.prepareDatabase(model: model, seed: seed, logger: logger)
        print("Initialized \(database.db)")
    }
}

DealerGateway.main()
