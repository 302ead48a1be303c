import Foundation
import ODataHTTP
import ODataStore
import Testing

/// Reads map the database file (`Database.mapFile`, `--mmap-mb`): what they map is the file
/// as it is now, and the option decides whether the gateway maps it at all.
@Suite struct MemoryMapTests {
    /// A checkpoint writes a change into the file under the readers' map, and empties the WAL
    /// of it, so the next read takes that page from the map alone.
    @Test func readsThroughTheMapSeeEachCheckpointedWrite() throws {
        let gateway = try TestGateway()
        #expect(ODataService.Configuration().memoryMapSize > 0)
        _ = try gateway.entity("Person(3)")  // maps the file on a reader's connection
        let database = try gateway.openDatabase()
        for round in 1...3 {
            let name = "Mapped\(round)"
            #expect(try gateway.send("MERGE", "Person(3)", json: ["lastName": name]).status == 204)
            try checkpointEverything(database)
            #expect(try gateway.entity("Person(3)")["lastName"] as? String == name)
            // The lastName index, read from the map too.
            #expect(try gateway.get(TestGateway.encodeQuery("Person/$count?$filter=lastName eq '\(name)'")).text == "1")
        }
    }

    /// Copies every committed frame of the WAL into the database file. The gateway's read-lock
    /// anchor takes a new snapshot after each write, so a passive checkpoint soon gets them all.
    private func checkpointEverything(_ database: Database) throws {
        for _ in 0..<100 {
            let row = try database.rows("PRAGMA wal_checkpoint(PASSIVE)").first ?? []
            if row.count == 3, row[1] == row[2] { return }
            usleep(10_000)
        }
        throw TestFailure("the WAL was never checkpointed in full")
    }

    /// The executable maps the file unless `--mmap-mb 0` says not to; /proc shows which.
    @Test func theGatewayMapsItsFileUnlessToldNotTo() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-mmap-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let db = folder.appendingPathComponent("cardealer.sqlite").resolvingSymlinksInPath().path
        let arguments = ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--db", db, "--port", "0", "--threads", "1"]

        for (extra, mapped) in [([String](), true), (["--mmap-mb", "0"], false), (["--mmap-mb", "64"], true)] {
            let gateway = try GatewayProcess(arguments: arguments + extra)
            // The reader's connection opens, and maps the file, with the first read.
            #expect(try gateway.get("Person(1)").status == 200)
            // Read to its end: String(contentsOfFile:) stops after the first read of a /proc file.
            guard let handle = FileHandle(forReadingAtPath: "/proc/\(gateway.process.processIdentifier)/maps") else {
                throw TestFailure("cannot read the gateway's /proc maps")
            }
            let maps = String(decoding: handle.readDataToEndOfFile(), as: UTF8.self)
            let mapsFile = maps.split(separator: "\n").contains { $0.hasSuffix(" " + db) }
            #expect(mapsFile == mapped, "\(extra)")
            #expect(gateway.stop() == 0)
        }
    }
}
