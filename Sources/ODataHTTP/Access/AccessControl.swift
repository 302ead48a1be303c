import CSDL
import Crypto
import EDM
import Foundation
import HTTPCore

/// Authentication and the roles' services, from an access file that can be reloaded while
/// serving. Each role but `admin` is served by an `ODataService` of its own over its
/// `RoleModel`, sharing the store; `admin` is the service that holds this.
public final class AccessControl: @unchecked Sendable {
    public let path: String
    private let document: CSDLDocument
    private let model: EntityModel

    /// The current rules and their services; swapped whole by `reload`, read under `lock`.
    private struct State {
        var policy: AccessPolicy
        var services: [String: (role: ResolvedRole, service: ODataService)]
    }

    private let lock = NSLock()
    private var state: State?
    /// Services replaced by a reload. Kept for the process's life: each worker thread keeps a
    /// context in every service it served (`ThreadLocal`), which must outlive that thread.
    private var retired: [ODataService] = []
    /// SHA-256 of keys seen valid before, to the key's name: a key sent alone (Bearer, X-API-Key)
    /// is then checked against its entry only, not every entry. Memory only, reset on reload.
    private var recognized: [SHA256Digest: String] = [:]
    private var makeService: (@Sendable (EntityModel, RoleRules) -> ODataService)?
    private var loadedFile: AccessFile
    private var fileStamp: (Date?, UInt64?)

    /// Reads and checks the file against the schema; nothing is served until an
    /// `ODataService` adopts it.
    public init(path: String, schema: URL, model: EntityModel) throws(AccessFileError) {
        self.path = path
        do {
            document = try CSDLReader.read(contentsOf: schema)
        } catch {
            throw AccessFileError("cannot read the schema \(schema.path): \(error)")
        }
        self.model = model
        loadedFile = try AccessFile.read(path: path)
        fileStamp = Self.stamp(of: path)
        _ = try AccessPolicy.resolve(loadedFile, document: document, model: model)
    }

    /// Called once by the service that adopts it, with how to make a role's service.
    func adopt(makeService: @escaping @Sendable (EntityModel, RoleRules) -> ODataService) throws(AccessFileError) {
        self.makeService = makeService
        let policy = try AccessPolicy.resolve(loadedFile, document: document, model: model)
        let services = try self.services(for: policy, reusing: [:])
        lock.withLock { state = State(policy: policy, services: services) }
    }

    /// Reads the file again and applies it to the next requests; requests in flight finish
    /// under the rules they started with, and no connection is dropped. A file that cannot be
    /// applied leaves the current rules in force.
    @discardableResult
    public func reload() throws(AccessFileError) -> String {
        let stamp = Self.stamp(of: path)
        let file = try AccessFile.read(path: path)
        let policy = try AccessPolicy.resolve(file, document: document, model: model)
        let current = lock.withLock { state?.services ?? [:] }
        let services = try self.services(for: policy, reusing: current)
        lock.withLock {
            for (name, old) in current where services[name]?.service !== old.service { retired.append(old.service) }
            state = State(policy: policy, services: services)
            recognized = [:]
            loadedFile = file
            fileStamp = stamp
        }
        return summary
    }

    /// Reloads when the file's modification time or size changed since it was read; nil when it
    /// did not.
    public func reloadIfChanged() throws(AccessFileError) -> String? {
        let stamp = Self.stamp(of: path)
        // Stamped before reading: a file that cannot be applied is reported once, not every check.
        let unchanged = lock.withLock {
            defer { fileStamp = stamp }
            return fileStamp.0 == stamp.0 && fileStamp.1 == stamp.1
        }
        return unchanged ? nil : try reload()
    }

    /// Roles and keys in force, for the log: never a secret.
    public var summary: String {
        lock.withLock {
            guard let state else { return "" }
            let roles = state.policy.roles.keys.sorted().joined(separator: ", ")
            return "roles \(roles); \(state.policy.keys.count) keys" + (state.policy.anonymous == nil ? "; no anonymous access" : "; anonymous role")
        }
    }

    private static func stamp(of path: String) -> (Date?, UInt64?) {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        return (attributes?[.modificationDate] as? Date, (attributes?[.size] as? NSNumber)?.uint64Value)
    }

    private func services(for policy: AccessPolicy, reusing current: [String: (role: ResolvedRole, service: ODataService)])
        throws(AccessFileError) -> [String: (role: ResolvedRole, service: ODataService)] {
        guard let makeService else { return [:] }
        var services: [String: (role: ResolvedRole, service: ODataService)] = [:]
        for (name, role) in policy.roles where !role.isAdmin {
            if let kept = current[name], kept.role == role {
                services[name] = kept
                continue
            }
            let view: EntityModel
            do {
                view = try RoleModel.view(of: document, hiddenSets: role.hiddenSets, hiddenProperties: role.hiddenProperties)
            } catch {
                throw AccessFileError("role \(name): the schema without what it hides is not valid: \(error)")
            }
            services[name] = (role, makeService(view, role.rules))
        }
        return services
    }

    /// Who sent the request, and the service of its role (nil: `admin`, the full service).
    struct Caller {
        let name: String
        let service: ODataService?
        /// What its rate is counted by.
        let rateKey: String
        let rateLimit: Double?
    }

    /// What a caller without a key is counted by: its address without the port (every
    /// connection has a port of its own).
    static func addressKey(_ request: HTTPRequest) -> String {
        guard let address = request.clientAddress, let colon = address.lastIndex(of: ":") else { return "address -" }
        return "address " + address[..<colon]
    }

    /// Query parameters that carry keys in other APIs: refused, never read.
    private static let keyParameters: Set<String> = ["api_key", "apikey", "api-key", "key", "access_token", "token", "x-api-key"]

    /// The first query parameter named like a key, if any.
    static func keyParameter(in query: Substring) -> String? {
        guard !query.isEmpty else { return nil }
        for parameter in query.split(separator: "&") {
            let raw = parameter.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).first.map(String.init) ?? ""
            let name = (raw.removingPercentEncoding ?? raw).lowercased()
            if keyParameters.contains(name) { return name }
        }
        return nil
    }

    func authenticate(_ request: HTTPRequest) throws(AccessError) -> Caller {
        if let name = Self.keyParameter(in: request.query) { throw AccessError.keyInQuery(name) }
        guard let state = lock.withLock({ state }) else { throw AccessError.unauthenticated("Access rules are not loaded.") }
        var presentedName: String?
        let key: String
        if let authorization = request.header("Authorization") {
            let parts = authorization.split(separator: " ", maxSplits: 1)
            let scheme = parts.first.map { $0.lowercased() } ?? ""
            let value = parts.count == 2 ? parts[1].trimmingCharacters(in: .whitespaces) : ""
            switch scheme {
            case "bearer":
                key = value
            case "basic":
                guard let decoded = Data(base64Encoded: value).flatMap({ String(data: $0, encoding: .utf8) }),
                      let colon = decoded.firstIndex(of: ":")
                else { throw AccessError.unauthenticated("The Basic credentials are not base64 of name:key.") }
                presentedName = String(decoded[..<colon])
                key = String(decoded[decoded.index(after: colon)...])
            default:
                throw AccessError.unauthenticated("The Authorization scheme is not supported; use Bearer or Basic.")
            }
        } else if let header = request.header("X-API-Key") {
            key = header.trimmingCharacters(in: .whitespaces)
        } else {
            guard let anonymous = state.policy.anonymous, let service = state.services[anonymous.name]?.service else {
                throw AccessError.unauthenticated("An API key is required: send Authorization: Bearer KEY, X-API-Key: KEY or Basic name:KEY.")
            }
            return Caller(name: "anonymous", service: service, rateKey: Self.addressKey(request), rateLimit: anonymous.rateLimit)
        }
        guard let stored = find(key, named: presentedName, in: state.policy), let role = state.policy.roles[stored.role] else {
            throw AccessError.unauthenticated("The API key is not valid.")
        }
        return Caller(name: stored.name, service: role.isAdmin ? nil : state.services[role.name]?.service,
                      rateKey: "key " + stored.name, rateLimit: stored.rateLimit ?? role.rateLimit)
    }

    private func find(_ key: String, named name: String?, in policy: AccessPolicy) -> StoredKey? {
        guard !key.isEmpty else { return nil }
        if let name {
            guard let stored = policy.keys[name], APIKey.matches(key, salt: stored.salt, stored: stored.hash) else { return nil }
            return stored
        }
        let fingerprint = SHA256.hash(data: Data(key.utf8))
        if let known = lock.withLock({ recognized[fingerprint] }), let stored = policy.keys[known],
           APIKey.matches(key, salt: stored.salt, stored: stored.hash) {
            return stored
        }
        for stored in policy.keys.values where APIKey.matches(key, salt: stored.salt, stored: stored.hash) {
            lock.withLock { recognized[fingerprint] = stored.name }
            return stored
        }
        return nil
    }
}
