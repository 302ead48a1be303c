import EDM
import Foundation
import ODataStore
import SQLiteStore
#if canImport(Glibc)
import Glibc
#endif

/// Requests with bodies, and a snapshot of every table, for the write tests.
extension TestGateway {
    /// Sends `json` (a dictionary or array, encoded with JSONSerialization) as application/json.
    func send(_ method: String, _ target: String, json: Any, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        let body = try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed])
        return try send(method, target, body: Array(body), headers: headers)
    }

    /// Sends raw bytes, as application/json unless `headers` names another Content-Type.
    func send(_ method: String, _ target: String, body: [UInt8], headers: [String: String] = [:]) throws -> RawHTTPResponse {
        var all = ["Accept": "application/json", "Content-Type": "application/json"]
        for (name, value) in headers { all[name] = value }
        all = all.filter { !$0.value.isEmpty }
        // A server that answers before reading the whole body (413) closes the socket under
        // the writer; that must be an error, not SIGPIPE killing the test process.
        signal(SIGPIPE, SIG_IGN)
        return try request(method, target, headers: all, body: body)
    }

    func send(_ method: String, _ target: String, text: String, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        try send(method, target, body: Array(text.utf8), headers: headers)
    }

    /// `d` of a JSON response, as an object.
    func entity(_ target: String) throws -> [String: Any] {
        let response = try get(target)
        guard response.status == 200, let entity = try response.d() as? [String: Any] else {
            throw TestFailure("GET \(target) -> \(response.status): \(response.text.prefix(300))")
        }
        return entity
    }

    /// Every row of every table of the model (and, on SQLite, its sequence table): equal
    /// snapshots mean the database did not change. PostgreSQL's sequences are not
    /// transactional: a rolled-back insert leaves its key unused, never handed out again.
    func tableContents() throws -> [String: [[SQLValue]]] {
        let database = try openConnection()
        let dialect = database.dialect
        var contents: [String: [[SQLValue]]] = [:]
        for type in model.entityTypes {
            let keys = type.keyProperties.map { dialect.quote($0.columnName) }.joined(separator: ", ")
            contents[type.tableName] = try database.rows("SELECT * FROM \(dialect.quote(type.tableName)) ORDER BY \(keys)")
        }
        if engine == .sqlite {
            contents["sqlite_sequence"] = try database.rows("SELECT name, seq FROM sqlite_sequence ORDER BY name")
        }
        return contents
    }

    func rowCount(_ table: String) throws -> Int {
        let database = try openConnection()
        guard case .integer(let count)? = try database.rows("SELECT count(*) FROM \(database.dialect.quote(table))").first?.first else { return -1 }
        return Int(count)
    }
}

extension RawHTTPResponse {
    /// `__metadata` of the entity in `d`.
    func metadata() throws -> [String: Any] {
        guard let entity = try d() as? [String: Any], let metadata = entity["__metadata"] as? [String: Any] else {
            throw TestFailure("no __metadata in \(text.prefix(300))")
        }
        return metadata
    }
}
