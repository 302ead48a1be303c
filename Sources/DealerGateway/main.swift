import ArgumentParser
import EDM
import Foundation
import HTTPCore
import Logging
import ODataHTTP
import ODataSerialization
import ODataStore
import PostgresStore
import SQLiteStore
#if canImport(Glibc)
import Glibc
#endif

/// `dealer-gateway`: serves any CSDL schema as an OData V2 service over a SQLite file.
struct DealerGateway: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dealer-gateway",
        abstract: "An OData V2 gateway over SQLite, driven by a CSDL schema.",
        subcommands: [Serve.self, Initialize.self, Keys.self],
        defaultSubcommand: Serve.self)
}

struct DatabaseOptions: ParsableArguments {
    @Option(help: "The CSDL (EDMX) schema to serve.")
    var schema: String = "Schema/CarDealer.edmx"

    @Option(help: "The SQLite database file; created from the schema (and the seed folder) when missing.")
    var db: String = "data/cardealer.sqlite"

    @Option(name: .customLong("database"),
            help: "Serve a PostgreSQL database instead of the SQLite file: a libpq URI, postgresql://user@host:port/dbname (the password from the URI, PGPASSWORD or ~/.pgpass). Its tables are created (and seeded) when it has none of the schema's; tables that differ from the schema are refused, never changed.")
    var postgresURL: String?

    /// Where the entities are, for logs: the file, or the PostgreSQL URI without its password.
    var location: String {
        guard let postgresURL else { return db }
        guard var components = URLComponents(string: postgresURL), components.password != nil else { return postgresURL }
        components.password = "***"
        return components.string ?? postgresURL
    }

    /// The store the service reads and writes: PostgreSQL when `--database` names one, else the SQLite file.
    func openStore(memoryMapSize: Int) throws -> any EntityStore {
        if let postgresURL { return try PostgresStore(url: postgresURL) }
        return SQLiteStore(path: db, memoryMapSize: memoryMapSize)
    }

    /// Creates the schema's tables in an empty PostgreSQL database (and seeds them); refuses
    /// one whose tables differ from the schema, naming each difference.
    func preparePostgres(_ url: String, model: EntityModel, seed: String?, logger: Logger) throws {
        let connection = try PostgresConnection(url: url)
        let schema = PostgresSchema(model: model)
        let isNew: Bool
        do {
            isNew = try schema.prepare(connection)
        } catch let mismatch as PostgresSchemaMismatch {
            throw ValidationError(mismatch.description)
        }
        guard isNew, let seed else { return }
        let counts = try SeedLoader(model: model).load(from: URL(fileURLWithPath: seed), into: connection)
        try schema.advanceIdentities(on: connection)
        logger.info("seeded \(location): \(counts.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", "))")
    }

    func loadModel() throws -> EntityModel {
        guard FileManager.default.isReadableFile(atPath: schema) else {
            throw ValidationError("cannot read the schema file \(schema)")
        }
        let model: EntityModel
        do {
            model = try ModelLoader.load(contentsOf: URL(fileURLWithPath: schema))
        } catch let error as ModelError {
            throw ValidationError("schema \(schema): \(error.message)")
        }
        do {
            try ODataService.checkServiceOperations(of: model)
        } catch {
            throw ValidationError("schema \(schema): \(error.message)")
        }
        return model
    }

    /// Opens the database, creating its tables (and seeding them) when it is new.
    func prepareDatabase(model: EntityModel, seed: String?, logger: Logger) throws {
        if let postgresURL { return try preparePostgres(postgresURL, model: model, seed: seed, logger: logger) }
        let url = URL(fileURLWithPath: db)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let database = try Database(path: db)
        try database.checkIntegrity()
        try database.configureForService()
        let builder = SchemaBuilder(model: model, dialect: database.dialect)
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

    @Option(name: .customLong("public-url"), help: "The service root as clients reach it (https://example.com/CarDealer.svc), behind a proxy say: every absolute URI the service writes starts with it, while --root stays the path served. Without it, URIs are made from each request's Host header, which must be a well-formed host[:port].")
    var publicURL: String?

    @Option(help: "Worker threads, each with its own SQLite connection; the default is the number of cores.")
    var threads: Int = ProcessInfo.processInfo.activeProcessorCount

    @Option(help: "The server page size of entity sets whose schema sets none.")
    var pageSize: Int = 200

    @Option(help: "The largest request body accepted, in bytes.")
    var maxBodySize: Int = 10 * 1024 * 1024

    @Option(help: "Connections open at once; past it new connections are answered 503 and closed. The default is 1024, or what the process's descriptor limit allows.")
    var maxConnections: Int?

    @Option(name: .customLong("max-connections-per-client"), help: "Connections open at once from one client address (0: no limit); past it new ones are answered 429 and closed.")
    var maxConnectionsPerClient: Int = 256

    @Option(name: .customLong("request-head-timeout"), help: "Seconds a connection has to send a complete request head, from its opening or its previous response; then it is closed (0: no deadline).")
    var requestHeadTimeout: Double = 20

    @Option(name: .customLong("body-memory-mb"), help: "MiB that all buffered request bodies together may hold; past it new bodies are answered 503 with Retry-After.")
    var bodyMemoryMegabytes: Int = 64

    @Option(name: .customLong("mmap-mb"), help: "MiB of the database file that reads map into memory instead of reading page by page, once the file outgrows their page cache (16 MiB); 0 turns mapping off.")
    var mmapMegabytes: Int = 1024

    @Option(name: .customLong("allow-origin"), help: "An origin whose browser pages may call the service (CORS); repeat it, or give * for any.")
    var allowedOrigins: [String] = []

    @Flag(name: .customLong("allow-credentials"), help: "Lets the --allow-origin pages send cookies or Authorization (Access-Control-Allow-Credentials: true); needs explicit origins, not *.")
    var allowCredentials = false

    @Flag(name: .customLong("trust-forwarded"), help: "Behind a reverse proxy: absolute URIs take the scheme and host from Forwarded or X-Forwarded-Proto/X-Forwarded-Host when a request carries them (--public-url, when given, wins). Only where every request comes through a proxy that sets them.")
    var trustForwarded = false

    @Flag(name: .customLong("require-if-match"), help: "Refuse PUT, MERGE, PATCH and DELETE of an entity or property without If-Match with 428, as WCF Data Services does.")
    var requireIfMatch = false

    // Limits of what one request reads or writes; past one, a 400 that names it.
    private static var defaultLimits: ODataService.Configuration.Limits { ODataService.Configuration().limits }
    @Option(help: "The most entities one expanded collection may hold.")
    var maxResultsPerCollection: Int = Self.defaultLimits.maxResultsPerCollection

    @Option(help: "The most entities one response may hold, top-level and expanded, each counted as often as it is written.")
    var maxEntitiesPerResponse: Int = Self.defaultLimits.maxEntitiesPerResponse

    @Option(help: "The most operations one $batch may carry, change-set members included.")
    var maxBatchCount: Int = Self.defaultLimits.maxBatchCount

    @Option(help: "The most operations one change set may carry.")
    var maxChangesetCount: Int = Self.defaultLimits.maxChangesetCount

    @Option(help: "The most entities one create may insert, the top-level one and those inline (deep insert).")
    var maxObjectCountOnInsert: Int = Self.defaultLimits.maxObjectCountOnInsert

    @Option(help: "The most bytes of one $batch response; operations past it are answered with a 400.")
    var maxBatchResponseBytes: Int = Self.defaultLimits.maxBatchResponseBytes

    @Option(help: "The largest $top a request may ask for.")
    var maxTop: Int = Self.defaultLimits.maxTop

    @Option(help: "The most nodes (values, properties, operators, calls) of one $filter or $orderby; pyodata's filter(key__in=[...]) takes four a value.")
    var maxFilterNodes: Int = Self.defaultLimits.expression.maxNodes

    @Option(help: "The deepest nesting of one $filter or $orderby: parentheses, not and -, call arguments, and chained operators other than and/or.")
    var maxFilterDepth: Int = Self.defaultLimits.expression.maxDepth

    @Option(help: "Log level: trace, debug (adds an access log line per request), info, notice, warning, error, critical.")
    var logLevel: String = "info"

    @OptionGroup var security: SecurityOptions

    func validate() throws {
        guard root.hasPrefix("/"), !root.hasSuffix("/") || root == "/" else { throw ValidationError("--root must start with / and not end with /") }
        guard threads >= 1 else { throw ValidationError("--threads must be at least 1") }
        guard pageSize >= 1 else { throw ValidationError("--page-size must be at least 1") }
        guard (0...(1 << 20)).contains(mmapMegabytes) else { throw ValidationError("--mmap-mb must be from 0 to 1048576") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("--log-level \(logLevel) is not a level") }
        try security.validate(host: host)
        if let maxConnections { guard maxConnections >= 1 else { throw ValidationError("--max-connections must be at least 1") } }
        guard maxConnectionsPerClient >= 0 else { throw ValidationError("--max-connections-per-client must be 0 or more") }
        guard requestHeadTimeout >= 0, requestHeadTimeout <= 3600 else { throw ValidationError("--request-head-timeout must be from 0 to 3600 seconds") }
        guard (1...(1 << 20)).contains(bodyMemoryMegabytes) else { throw ValidationError("--body-memory-mb must be from 1 to 1048576") }
        for (name, value) in [("--max-results-per-collection", maxResultsPerCollection), ("--max-entities-per-response", maxEntitiesPerResponse),
                              ("--max-batch-count", maxBatchCount), ("--max-changeset-count", maxChangesetCount),
                              ("--max-object-count-on-insert", maxObjectCountOnInsert), ("--max-batch-response-bytes", maxBatchResponseBytes),
                              ("--max-top", maxTop), ("--max-filter-nodes", maxFilterNodes), ("--max-filter-depth", maxFilterDepth)]
        where value < 1 {
            throw ValidationError("\(name) must be at least 1")
        }
        if allowCredentials {
            guard !allowedOrigins.isEmpty, !allowedOrigins.contains("*") else {
                throw ValidationError("--allow-credentials needs --allow-origin with explicit origins, not *")
            }
        }
        if let publicURL {
            guard let components = URLComponents(string: publicURL), let scheme = components.scheme?.lowercased(),
                  scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
                  components.query == nil, components.fragment == nil, components.user == nil,
                  !publicURL.hasSuffix("/")
            else {
                throw ValidationError("--public-url must be an http or https URL with a host, no query and no trailing /, such as https://example.com/CarDealer.svc")
            }
        }
    }

    /// Descriptors the process keeps for other things than connections: the database's files,
    /// the listening socket, the log.
    static let descriptorsBesideConnections = 64

    /// Raises the process's descriptor limit to its hard limit, and returns the connection limit
    /// it allows: `--max-connections`, checked against it, or the default within it.
    func connectionLimit() throws -> Int {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
            getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        let available = Int(clamping: limit.rlim_cur) - Self.descriptorsBesideConnections
        guard let maxConnections else { return max(1, min(1024, available)) }
        guard maxConnections <= available else {
            throw ValidationError("--max-connections \(maxConnections) needs \(maxConnections + Self.descriptorsBesideConnections) file descriptors; the process may open \(limit.rlim_cur) (raise it with ulimit -n)")
        }
        return maxConnections
    }

    func run() throws {
        var logger = Logger(label: "dealer-gateway")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let model = try database.loadModel()
        try database.prepareDatabase(model: model, seed: seed, logger: logger)

        let access = try security.accessControl(schema: database.schema, model: model, logger: logger)

        // Block the stop and reload signals before any thread starts, so that only sigwait below
        // sees them.
        var signals = sigset_t()
        sigemptyset(&signals)
        sigaddset(&signals, SIGINT)
        sigaddset(&signals, SIGTERM)
        sigaddset(&signals, SIGHUP)
        pthread_sigmask(SIG_BLOCK, &signals, nil)

        var configuration = ODataService.Configuration()
        configuration.rootPath = root == "/" ? "" : root
        configuration.defaultPageSize = pageSize
        configuration.allowedOrigins = allowedOrigins
        configuration.allowsCredentials = allowCredentials
        configuration.trustsForwardedHeaders = trustForwarded
        configuration.requiresIfMatch = requireIfMatch
        configuration.limits.maxResultsPerCollection = maxResultsPerCollection
        configuration.limits.maxEntitiesPerResponse = maxEntitiesPerResponse
        configuration.limits.maxBatchCount = maxBatchCount
        configuration.limits.maxChangesetCount = maxChangesetCount
        configuration.limits.maxObjectCountOnInsert = maxObjectCountOnInsert
        configuration.limits.maxBatchResponseBytes = maxBatchResponseBytes
        configuration.limits.maxTop = maxTop
        configuration.limits.expression.maxNodes = maxFilterNodes
        configuration.limits.expression.maxDepth = maxFilterDepth
        configuration.publicURL = publicURL
        configuration.rateLimit = try security.rateLimit.map { try Serve.parseRate($0, option: "--rate-limit") }
        var serverConfiguration = HTTPServer.Configuration()
        serverConfiguration.configureForODataService()
        serverConfiguration.host = host
        serverConfiguration.port = port
        serverConfiguration.threads = threads
        serverConfiguration.maxBodySize = maxBodySize
        serverConfiguration.connectionLimit = UInt32(try connectionLimit())
        serverConfiguration.connectionsPerAddressLimit = UInt32(clamping: maxConnectionsPerClient)
        serverConfiguration.requestHeadTimeoutSeconds = requestHeadTimeout
        serverConfiguration.bodyMemoryBudget = bodyMemoryMegabytes << 20
        serverConfiguration.recordsClientAddress = logger.logLevel <= .debug || access != nil || configuration.rateLimit != nil
        serverConfiguration.tls = try security.tlsCredentials(logger: logger)
        if serverConfiguration.tls != nil { configuration.scheme = "https" }
        let displayHost = host.contains(":") ? "[\(host)]" : host
        configuration.fallbackHost = "\(displayHost):\(port)"
        // The engine: PostgreSQL when --database names one, else a SQLite file; each worker
        // reads through its own connection.
        let store = try database.openStore(memoryMapSize: mmapMegabytes << 20)
        let service = try ODataService(model: model, store: store, configuration: configuration, logger: logger, access: access)
        let server = HTTPServer(configuration: serverConfiguration) { request in service.handle(request) }
        let boundPort = try server.start()
        // Written unbuffered: tests and scripts wait for this line to learn the port.
        let scheme = serverConfiguration.tls == nil ? "http" : "https"
        FileHandle.standardOutput.write(Data("Serving \(scheme)://\(displayHost):\(boundPort)\(configuration.rootPath)/\n".utf8))
        logger.info("serving \(database.schema) from \(database.location) with \(threads) threads")

        if let access { SecurityOptions.watch(access, logger: logger) }
        var received: Int32 = 0
        while sigwait(&signals, &received) == 0, received == SIGHUP {
            SecurityOptions.reload(access, logger: logger)
        }
        logger.info("signal \(received): stopping")
        Self.exitIfStopTakesLongerThan(seconds: 4, logger: logger)
        server.stop()
        let writes = service.writeStatistics
        logger.info("committed \(writes.writesCommitted) writes in \(writes.commits) commits")
    }
}

extension Serve {
    /// Stopping waits for the requests in flight; one stuck (a statement that runs long, a
    /// response held by a write that never settles) must not keep the process alive after it was
    /// told to stop. Committed writes are in the database already; an uncommitted one is rolled
    /// back when the file is next opened.
    static func exitIfStopTakesLongerThan(seconds: UInt32, logger: Logger) {
        let watchdog = Thread {
            sleep(seconds)
            logger.warning("stopping took longer than \(seconds) s: exiting without waiting for the requests still in flight")
            _exit(0)
        }
        watchdog.start()
    }
}

struct Initialize: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Create the schema's tables without serving: a SQLite file empty (unless --seed is given), a PostgreSQL database (--database) seeded from SeedData, as serve would.")

    @OptionGroup var database: DatabaseOptions

    @Option(help: "The folder of seed files to load when the database is new (default: none for a SQLite file, SeedData for --database).")
    var seed: String?

    @Flag(help: "Create the tables without seed rows, even for --database.")
    var noSeed = false

    /// A shared PostgreSQL database is made ready for the gateways that will serve it, as the
    /// first `serve` would make it; a SQLite file stays empty for tools that fill it (the
    /// benchmark's data generator).
    var seedFolder: String? {
        if noSeed { return nil }
        return seed ?? (database.postgresURL != nil ? "SeedData" : nil)
    }

    func validate() throws {
        if noSeed && seed != nil { throw ValidationError("--seed and --no-seed exclude each other") }
    }

    func run() throws {
        let logger = Logger(label: "dealer-gateway")
        let model = try database.loadModel()
        try database.prepareDatabase(model: model, seed: seedFolder, logger: logger)
        print("Initialized \(database.location)")
    }
}

DealerGateway.main()
