import EDM
import Foundation
import HTTPCore
import Logging
import ODataSerialization
import ODataStore
import ODataURI

/// The OData service: it turns an HTTP request into a `UriInfo`, runs it against its
/// `EntityStore` and writes the response. One service serves every server thread: what it
/// holds (model, metadata, configuration) never changes after init, and what a thread keeps
/// between requests (reader, parse cache, entity layouts) is that thread's `WorkerContext`.
public final class ODataService: Sendable {
    public struct Configuration: Sendable {
        /// The path of the service root, e.g. `/CarDealer.svc`.
        public var rootPath = "/CarDealer.svc"
        /// The server page size of sets whose schema sets none.
        public var defaultPageSize = 200
        public typealias Limits = QueryLimits
        /// What one request may ask for, read and write (see `QueryLimits`).
        public var limits = QueryLimits()
        /// Used for absolute URIs when a request carries no Host header (or an empty one).
        public var fallbackHost = "127.0.0.1:8080"
        /// The service root as clients reach it (`https://example.com/CarDealer.svc`, no
        /// trailing slash), behind a proxy say: every absolute URI the service writes starts
        /// with it, whatever the Host header, and `rootPath` stays the path served. Without
        /// it, absolute URIs are made from the Host header, which must then be a well-formed
        /// host[:port].
        public var publicURL: String?
        /// The scheme of absolute URIs made from the Host header: `https` when the server
        /// itself serves TLS, so that links a client follows stay on the secure port.
        public var scheme = "http"
        /// Origins whose browser pages may call the service (CORS), or `["*"]`; empty: none.
        public var allowedOrigins: [String] = []
        /// Whether allowed origins' pages may send credentials (cookies, Authorization):
        /// `Access-Control-Allow-Credentials: true`, for listed origins only, never `*`.
        public var allowsCredentials = false
        /// Whether the scheme and host of absolute URIs come from a proxy's `Forwarded` or
        /// `X-Forwarded-Proto`/`X-Forwarded-Host` when a request carries them (`ForwardedOrigin`);
        /// `publicURL`, when set, still wins.
        public var trustsForwardedHeaders = false
        /// Whether an update or delete of an entity without If-Match is refused with 428, as
        /// WCF Data Services refuses it for types with concurrency tokens.
        public var requiresIfMatch = false
        /// Requests per second each caller may make (a key, or a client address without one);
        /// nil: no limit but the access file's.
        public var rateLimit: Double?

        public init() {}
    }

    public let model: EntityModel
    public let configuration: Configuration
    let logger: Logger
    /// Whether the access log is on (`--log-level debug`), decided once: asking the logger
    /// copied its handler on every request (about 200 instructions of a `Person(n)`,
    /// callgrind), and the service's logger, a `let`, keeps the level it came with.
    private let logsAccess: Bool
    let uriParser: UriParser
    let metadataXML: [UInt8]
    /// The header lists of 200 JSON responses, which every such response shares (`okHeaders`).
    let jsonHeaders: (v1: [(String, String)], v2: [(String, String)])
    /// Each server thread's context, made on its first request and released when it ends.
    let workers: ThreadLocal<WorkerContext>
    /// The records of the contexts made so far (`workerRecords`).
    private let madeWorkers = MadeWorkers()

    /// Where the entities are read and written: every thread writes through its one write
    /// connection, so that their writes share commits.
    let store: any EntityStore
    /// Whether it closes the store when it ends: a role's service shares its store.
    private let ownsStore: Bool
    /// The role this service serves, whose rights every resolved request is checked against;
    /// nil: everything (no access file, or `admin`).
    let rules: RoleRules?
    /// Authentication and the roles' services, when an access file is in force.
    let access: AccessControl?
    /// Whether requests pass `admit` (keys, rates) before they are served.
    private let isGuarded: Bool
    let rateLimiter = RateLimiter()

    /// The service of any store under an access file's rules; each role gets a service of its
    /// own over the same store (`AccessControl`).
    public convenience init(model: EntityModel, store: any EntityStore, configuration: Configuration, logger: Logger,
                            access: AccessControl?) throws(AccessFileError) {
        let connections = ReaderConnections()
        self.init(model: model, store: store, configuration: configuration, logger: logger, rules: nil, access: access, ownsStore: true,
                  connections: connections)
        try access?.adopt { view, rules in
            ODataService(model: view, store: store, configuration: configuration, logger: logger, rules: rules, access: nil, ownsStore: false,
                         connections: connections)
        }
    }

    /// The service of any store, which it closes when it ends.
    public convenience init(model: EntityModel, store: any EntityStore, configuration: Configuration, logger: Logger) {
        self.init(model: model, store: store, configuration: configuration, logger: logger, rules: nil, access: nil, ownsStore: true,
                  connections: ReaderConnections())
    }

    init(model: EntityModel, store: any EntityStore, configuration: Configuration, logger: Logger,
         rules: RoleRules?, access: AccessControl?, ownsStore: Bool, connections: ReaderConnections) {
        self.model = model
        self.configuration = configuration
        self.store = store
        self.ownsStore = ownsStore
        self.rules = rules
        self.access = access
        self.isGuarded = access != nil || configuration.rateLimit != nil
        self.logger = logger
        self.logsAccess = logger.logLevel <= .debug
        self.uriParser = UriParser(model: model, limits: configuration.limits)
        // No target the cache keeps is longer than the parser accepts: a new key parsed into a
        // kept shape (`ParseCache`) skips the parser's length check, so a longer target must
        // bypass the cache and meet that check.
        let longestCachedTarget = min(1024, configuration.limits.maxURILength)
        self.metadataXML = Array(MetadataSerializer.xml(for: model).utf8)
        self.jsonHeaders = (Self.headers(type: Self.jsonType, version: .v1), Self.headers(type: Self.jsonType, version: .v2))
        let madeWorkers = madeWorkers
        self.workers = ThreadLocal {
            let worker = WorkerContext(store: store, connections: connections, rowFilters: rules?.rowFilters ?? [],
                                       longestCachedTarget: longestCachedTarget, entityLayouts: EntityLayouts(model: model))
            madeWorkers.add(worker.record)
            return worker
        }
    }

    /// The store's write connection and thread end with the service, not with the process: it
    /// commits what is pending.
    deinit {
        if ownsStore { store.close() }
    }

    /// How many writes the service committed, in how many commits.
    public var writeStatistics: WriteStatistics { store.writeStatistics }

    /// Handles one request, with the calling thread's `WorkerContext`; every failure becomes an
    /// OData error response. A write's response comes with a hold (`HTTPResponse.hold`) until
    /// its commit is decided.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        if isGuarded { return handleAdmitted(request) }
        return workers.withValue { worker in
            worker.begin()
            var response = respond(to: request, worker: worker)
            finish(&response, for: request)
            return response
        }
    }

    /// One record per worker context made so far: the thread it belongs to and the requests it
    /// served.
    var workerRecords: [WorkerRecord] { madeWorkers.records }

    /// The headers every response gets, and the access log. In place: taking the response and
    /// returning it copied it, a retain and release of each of its parts, on every request.
    func finish(_ response: inout HTTPResponse, for request: HTTPRequest, caller: String? = nil) {
        if !configuration.allowedOrigins.isEmpty {
            CrossOrigin.addHeaders(to: &response, for: request, allowedOrigins: configuration.allowedOrigins,
                                   credentials: configuration.allowsCredentials)
        }
        if let caller {
            auditLog(request, response, caller: caller)
        } else if logsAccess {
            // The access log, at --log-level debug; below that the message is never built.
            logger.debug("\(request.clientAddress ?? "-") \(request.method) \(Self.loggedTarget(request)) \(response.status) \(response.bodyCount)")
        }
    }

    func respond(to request: HTTPRequest, worker: WorkerContext) -> HTTPResponse {
        if let condition = request.transportCondition {
            return errorResponse(for: condition, request: request)
        }
        if request.method == "OPTIONS" {
            return CrossOrigin.preflight(request, allowedOrigins: configuration.allowedOrigins, credentials: configuration.allowsCredentials)
        }
        do {
            return try route(request, worker: worker)
        } catch {
            return errorResponse(for: error, request: request)
        }
    }

    private func route(_ request: HTTPRequest, worker: WorkerContext) throws -> HTTPResponse {
        let (context, method) = try requestContext(for: request, worker: worker)
        switch method {
        case "GET", "HEAD":
            return try conditionalRead(context)
        case "POST", "PUT", "MERGE", "PATCH", "DELETE":
            return try write(context, method: method)
        default:
            throw ServiceError.methodNotAllowed("the method \(method) is not supported", allow: "GET, HEAD, POST, PUT, MERGE, PATCH, DELETE")
        }
    }

    /// The request resolved against the model, and its method with X-HTTP-Method tunnelling
    /// applied. Batch operations are resolved here too.
    func requestContext(for request: HTTPRequest, worker: WorkerContext) throws -> (RequestContext, method: String) {
        let root = configuration.rootPath
        guard request.pathIsBelow(root) else {
            throw ServiceError.notFound("there is no service at '\(request.path)'; the service root is \(root)/")
        }
        // The target's text, and the path below the root and the query cut out of it, are made
        // only for a parse: a target met before is found by its bytes, and cutting them (String
        // index arithmetic) cost about 400 instructions of every repeated request.
        let cache = worker.parseCache
        // Kept by the target below the root, which all of them share: shorter to fingerprint and
        // compare, and one as short as `/Person(123)` fits in its String itself, with no storage
        // of its own for a hit to reach.
        let rootLength = root.utf8.count
        let parsed = try cache.entry(for: request.targetBytes.span.extracting(droppingFirst: rootLength),
                                     text: { String(decoding: request.targetBytes[rootLength...], as: UTF8.self) },
                                     parse: { () throws(URIError) in
            let (path, query) = request.pathAndQuery
            var relative = Substring(path.utf8.dropFirst(rootLength))
            if relative.utf8.first == UInt8(ascii: "/") { relative = Substring(relative.utf8.dropFirst()) }
            return try uriParser.parse(path: relative, query: query)
        }, derive: { info in
            QueryMemo(readScopeShape: ReadScopeShape(reading: info), expandsInPlace: Self.expandsInPlace(info))
        })
        let maxVersion = try VersionNegotiation.checkRequest(dataServiceVersion: request.header(.dataServiceVersion),
                                                             maxDataServiceVersion: request.header(.maxDataServiceVersion))
        var method = request.method
        if method == "POST", let tunnelled = request.header(.xHTTPMethod)?.uppercased() {
            guard ["MERGE", "PATCH", "PUT", "DELETE"].contains(tunnelled) else {
                throw ServiceError.badRequest("X-HTTP-Method '\(tunnelled)' cannot be tunnelled through POST")
            }
            method = tunnelled
        }
        try rules?.authorize(parsed.info, method: method)
        let context = RequestContext(request: request, worker: worker, parse: parsed, uris: try entityURIs(for: request, worker: worker),
                                     maxVersion: maxVersion)
        return (context, method)
    }

    /// `http://host/CarDealer.svc/` (`https` under TLS): the public URL when there is one, else from the Host
    /// header the client used, which is refused unless it is a well-formed host[:port] (it is
    /// written into every absolute URI of the response).
    func serviceRoot(for request: HTTPRequest) throws(ServiceError) -> String {
        if let publicURL = configuration.publicURL { return publicURL + "/" }
        if configuration.trustsForwardedHeaders, let forwarded = try ForwardedOrigin(request) {
            let host = forwarded.host ?? request.header(.host) ?? configuration.fallbackHost
            guard HostSyntax.isWellFormed(host) else {
                throw ServiceError.badRequest("The forwarded host '\(host)' is not a well-formed host[:port].")
            }
            return forwarded.scheme + "://" + host + configuration.rootPath + "/"
        }
        guard let host = request.header(.host), !host.isEmpty else {
            return configuration.scheme + "://" + configuration.fallbackHost + configuration.rootPath + "/"
        }
        guard HostSyntax.isWellFormed(host) else {
            throw ServiceError.badRequest("The Host header '\(host)' is not a well-formed host[:port].")
        }
        return configuration.scheme + "://" + host + configuration.rootPath + "/"
    }

    /// The URIs below the request's service root. A thread's requests nearly always name the
    /// same host, so its last root is kept, escaped for JSON, rather than built per request.
    private func entityURIs(for request: HTTPRequest, worker: WorkerContext) throws -> EntityURIs {
        var host = configuration.publicURL == nil ? request.header(.host) : nil
        if configuration.trustsForwardedHeaders, configuration.publicURL == nil {
            // The kept root is found by everything it was made of.
            host = (host ?? "") + ForwardedOrigin.fields.map { "\n" + (request.header($0) ?? "") }.joined()
        }
        if let uris = worker.serviceRootURIs, worker.serviceRootHost == host { return uris }
        let uris = EntityURIs(serviceRoot: try serviceRoot(for: request))
        (worker.serviceRootHost, worker.serviceRootURIs) = (host, uris)
        return uris
    }
}

/// What every processing step of one request needs to know.
struct RequestContext {
    let request: HTTPRequest
    /// The context of the thread serving the request: its reader and caches.
    let worker: WorkerContext
    /// The target's parse, and the SQL of its queries kept with it for the next request like it:
    /// held as the cache's entry, one reference, rather than copied out of it.
    let parse: ParseCache<QueryMemo>.Entry
    /// URIs below the service root the client used.
    let uris: EntityURIs
    /// The request's MaxDataServiceVersion (major), 2 when it sent none.
    let maxVersion: Int

    var info: UriInfo { parse.info }
    var queryMemo: QueryMemo { parse.derived }
    var serviceRoot: String { uris.serviceRoot }
}

/// The records of the worker contexts a service made (`WorkerRecord`).
final class MadeWorkers: @unchecked Sendable {
    private let lock = NSLock()
    private var made: [WorkerRecord] = []

    func add(_ record: WorkerRecord) { lock.withLock { made.append(record) } }

    var records: [WorkerRecord] { lock.withLock { made } }
}
