import Foundation
import ODataHTTP
import ODataStore
import SQLiteStore
import Testing

/// Reads map the database file once it is larger than their page cache
/// (`Database.mapFileIfLargerThanCache`, `--mmap-mb`): what they map is the file as it is now,
/// and the file's size and the option decide whether the gateway maps it at all.
@Suite struct MemoryMapTests {
    /// A checkpoint writes a change into the file under the readers' map, and empties the WAL
    /// of it, so the next read takes that page from the map alone.
    @Test func readsThroughTheMapSeeEachCheckpointedWrite() throws {
        let gateway = try TestGateway()
        // Before the first request, which opens the readers' connections; checkpointed, so
        // that the pages are in the file rather than only in the WAL.
        try Self.growBeyondThePageCache(gateway.databasePath)
        let database = try gateway.openDatabase()
        try checkpointEverything(database)
        _ = try gateway.entity("Person(3)")
        #expect(try Self.isMapped(gateway.databasePath, by: getpid()))
        for round in 1...3 {
            let name = "Mapped\(round)"
            #expect(try gateway.send("MERGE", "Person(3)", json: ["lastName": name]).status == 204)
            try checkpointEverything(database)
            #expect(try gateway.entity("Person(3)")["lastName"] as? String == name)
            // The lastName index, read from the map too.
            #expect(try gateway.get(TestGateway.encodeQuery("Person/$count?$filter=lastName eq '\(name)'")).text == "1")
        }
    }

    /// Copies every committed frame of the WAL into the database file. No read of the gateway
    /// outlives its request, so a passive checkpoint soon gets them all.
    private func checkpointEverything(_ database: Database) throws {
        for _ in 0..<300 {
            let row = try database.rows("PRAGMA wal_checkpoint(PASSIVE)").first ?? []
            if row.count == 3, row[1] == row[2] { return }
            usleep(10_000)
        }
        throw TestFailure("the WAL was never checkpointed in full")
    }

    /// The executable maps a file larger than the page cache unless `--mmap-mb 0` says not to,
    /// and leaves a smaller one to the cache; /proc shows which.
    @Test func theGatewayMapsALargeFileUnlessToldNotTo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-mmap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("cardealer.sqlite").resolvingSymlinksInPath().path
        let arguments = ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--db", db, "--port", "0", "--threads", "1"]

        func mapsItsFile(_ extra: [String]) throws -> Bool {
            let gateway = try GatewayProcess(arguments: arguments + extra)
            // The reader's connection opens, and maps the file, with the first read.
            #expect(try gateway.get("Person(1)").status == 200)
            let mapped = try Self.isMapped(db, by: gateway.process.processIdentifier)
            #expect(gateway.stop() == 0)
            return mapped
        }
        #expect(try mapsItsFile([]) == false, "the seeded file, 70 KB")
        try Self.growBeyondThePageCache(db)
        #expect(try mapsItsFile([]) == true)
        #expect(try mapsItsFile(["--mmap-mb", "0"]) == false)
        #expect(try mapsItsFile(["--mmap-mb", "64"]) == true)
    }

    /// Adds 20,000 people with 600-character first names: about 24 MB with the name index,
    /// more than the 16 MiB page cache.
    static func growBeyondThePageCache(_ path: String) throws {
        let database = try Database(path: path)
        try database.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
            INSERT INTO Person (firstName, lastName, ssn, createDate) SELECT hex(randomblob(300)), 'Filler', NULL, 0 FROM n
            """)
        guard try database.databaseSize() > Int64(Database.pageCacheKiB) * 1024 else {
            throw TestFailure("the file did not outgrow the page cache")
        }
    }

    /// Whether process `pid` maps the file at `path` (its /proc maps, read to the end:
    /// String(contentsOfFile:) stops after the first read of a /proc file).
    static func isMapped(_ path: String, by pid: Int32) throws -> Bool {
        guard let handle = FileHandle(forReadingAtPath: "/proc/\(pid)/maps") else {
            throw TestFailure("cannot read /proc/\(pid)/maps")
        }
        let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
        let resolved = URL(fileURLWithPath: path).resolvingSymlinksInPath().path
        return maps.split(separator: "\n").contains { $0.hasSuffix(" " + resolved) }
    }
}
