import Foundation

/// The access file: roles with their rules, and API keys, as JSON an operator can read and edit.
///
/// ```json
/// {
///   "roles": {
///     "reader":    { "hide": ["Person.SSN"] },
///     "anonymous": { "sets": { "*": "None", "Car": "AllRead" } },
///     "clerk":     { "sets": { "*": "AllRead", "Car": "ReadMultiple, ReadSingle, WriteAppend" },
///                    "hide": ["Person.SSN"], "rateLimit": 20 },
///     "recent":    { "sets": { "*": "All" }, "rows": { "Car": "Year gt 2005" } }
///   },
///   "keys": [
///     { "name": "web", "role": "reader", "created": "2026-11-27T22:00:00Z", "salt": "…", "hmacSHA256": "…" }
///   ]
/// }
/// ```
///
/// `reader` (`"*": "AllRead"`), `editor` (`"*": "All"`) and `admin` (everything, nothing hidden)
/// are built in; a role of the first two names given here adds its `hide` to the built-in one
/// and may change its `sets`. `anonymous`, when present, is what callers without a key may do.
/// `sets` maps an entity set (or `*`, every set not named) to WCF's `EntitySetRights` names; a set
/// with `None` and its type do not exist for the role. `hide` lists `Set.Property`. `rows` maps
/// a set to a `$filter` expression: rows outside it do not exist for the role, and a write that
/// would put a row outside it is refused (403).
public struct AccessFile: Codable, Sendable, Equatable {
    public struct Role: Codable, Sendable, Equatable {
        public var sets: [String: String]?
        public var hide: [String]?
        /// Row filters: `Set` to a `$filter` expression; the role reads and writes only the
        /// rows of the set that meet it.
        public var rows: [String: String]?
        /// Requests per second each key of the role may make (or each client address, for
        /// `anonymous`), unless the key has its own.
        public var rateLimit: Double?

        public init(sets: [String: String]? = nil, hide: [String]? = nil, rows: [String: String]? = nil, rateLimit: Double? = nil) {
            self.sets = sets
            self.hide = hide
            self.rows = rows
            self.rateLimit = rateLimit
        }
    }

    public struct Key: Codable, Sendable, Equatable {
        public var name: String
        public var role: String
        public var created: String
        /// Base64 of a random salt and of HMAC-SHA256(salt, key); the key itself is never stored.
        public var salt: String
        public var hmacSHA256: String
        public var rateLimit: Double?
    }

    public var roles: [String: Role]
    public var keys: [Key]

    public init(roles: [String: Role] = [:], keys: [Key] = []) {
        self.roles = roles
        self.keys = keys
    }

    public static let builtInRoles = ["reader", "editor", "admin"]
    public static let anonymousRole = "anonymous"

    /// Reads `path`; a missing file is an empty one, so that `keys add` can start it.
    public static func read(path: String, missingIsEmpty: Bool = false) throws(AccessFileError) -> AccessFile {
        guard let data = FileManager.default.contents(atPath: path) else {
            if missingIsEmpty && !FileManager.default.fileExists(atPath: path) { return AccessFile() }
            throw AccessFileError("cannot read the access file \(path)")
        }
        let decoder = JSONDecoder()
        let file: AccessFile
        do {
            file = try decoder.decode(AccessFile.self, from: data)
        } catch {
            throw AccessFileError("the access file \(path) is not valid: \(Self.describe(error))")
        }
        return file
    }

    /// Writes the file whole, readable by its owner alone, through a temporary file renamed
    /// over it: a server reloading it never reads half of it.
    public func write(path: String) throws(AccessFileError) {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            let data = try encoder.encode(self) + Data("\n".utf8)
            let temporary = path + ".tmp-\(getpid())"
            guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw AccessFileError("cannot write \(temporary)")
            }
            guard rename(temporary, path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporary)
                throw AccessFileError("cannot replace \(path): \(reason)")
            }
        } catch let error as AccessFileError {
            throw error
        } catch {
            throw AccessFileError("cannot write \(path): \(error)")
        }
    }

    private static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "\(Self.path(context.codingPath + [key])) is missing"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(Self.path(context.codingPath)): \(context.debugDescription)"
        default: return "\(error)"
        }
    }

    private static func path(_ keys: [any CodingKey]) -> String {
        keys.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
    }
}

/// An access file that cannot be read, written or applied to the schema.
public struct AccessFileError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
