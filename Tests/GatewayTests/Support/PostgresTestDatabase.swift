import Foundation
import PostgresStore
import Testing

/// A database of its own on the suite's PostgreSQL server, so that tests never see each
/// other's tables: created empty, dropped when released. `scripts/test` starts a throw-away
/// cluster and sets CARDEALER_POSTGRES_URL; without it the PostgreSQL tests are skipped, unless
/// CARDEALER_REQUIRE_POSTGRES=1 (CI), which makes the missing server their failure.
final class PostgresTestDatabase {
    static let serverURL: String? = ProcessInfo.processInfo.environment["CARDEALER_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
    static let isRequired = ProcessInfo.processInfo.environment["CARDEALER_REQUIRE_POSTGRES"] == "1"
    /// The condition of every PostgreSQL test: run when a server is given, or when one is required.
    static let enabled = Testing.ConditionTrait.enabled(if: serverURL != nil || isRequired,
                                                        "no PostgreSQL server: run scripts/test, which starts one (CARDEALER_POSTGRES_URL)")

    struct NoServer: Error, CustomStringConvertible {
        var description: String { "CARDEALER_REQUIRE_POSTGRES=1, but CARDEALER_POSTGRES_URL names no server" }
    }

    let name: String
    /// The libpq URI of this database.
    let url: String

    init() throws {
        guard let server = Self.serverURL else { throw NoServer() }
        name = "cd_test_" + String(UInt64.random(in: 0...UInt64.max), radix: 36)
        url = Self.url(server, database: name)
        let admin = try PostgresConnection(url: Self.url(server, database: "postgres"))
        try admin.execute("CREATE DATABASE \"\(name)\" ENCODING 'UTF8' TEMPLATE template0")
    }

    deinit {
        guard let server = Self.serverURL, let admin = try? PostgresConnection(url: Self.url(server, database: "postgres")) else { return }
        try? admin.execute("DROP DATABASE IF EXISTS \"\(name)\" WITH (FORCE)")
    }

    func connect() throws -> PostgresConnection { try PostgresConnection(url: url) }

    /// `server` with its database (the URI's path) replaced by `database`.
    static func url(_ server: String, database: String) -> String {
        var components = URLComponents(string: server)!
        components.path = "/" + database
        return components.string!
    }
}
