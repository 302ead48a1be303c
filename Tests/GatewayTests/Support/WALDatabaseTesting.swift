import Foundation
import ODataStore
import SQLiteStore

/// What the suites that test reads beside writes in the WAL share (`ReadScopeTests`): a fresh
/// WAL database with one table of page-sized rows, connections
/// configured as the service's, page-sized commits made directly or through a `WriteGate`, and
/// the size of the WAL file.
protocol WALDatabaseTesting {}

extension WALDatabaseTesting {
    /// A fresh WAL database with one table of page-sized rows.
    func makeDatabase() throws -> (path: String, cleanup: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let path = directory.appendingPathComponent("test.sqlite").path
        let database = try connection(path)
        try database.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, data BLOB)")
        return (path, { try? FileManager.default.removeItem(at: directory) })
    }

    func connection(_ path: String) throws -> Database {
        let database = try Database(path: path)
        try database.configureForService()
        return database
    }

    func insertPage(_ database: Database) throws {
        try database.transaction {
            try database.cachedStatement("INSERT INTO item (data) VALUES (?)").run([.blob(Array(repeating: 7, count: 4000))])
        }
    }

    /// A page written as the service writes: through the gate, returning once committed.
    func insertPage(through gate: WriteGate) throws {
        let (_, commit) = try gate.write { database in
            try database.cachedStatement("INSERT INTO item (data) VALUES (?)").run([.blob(Array(repeating: 7, count: 4000))])
        }
        try commit.wait()
    }

    func walSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0
    }
}
