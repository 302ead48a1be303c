import Foundation
import ODataStore
import Testing

/// `HeldSnapshot` keeps a worker connection's read transaction open between read requests. It
/// must never serve a read that misses a commit finished before the request began, whoever
/// committed, and never keep its frames in the WAL while something writes. (A connection of its
/// own, not the gate's, stands for another process, as in `ReadLockAnchorTests`.)
@Suite struct HeldSnapshotTests: WALDatabaseTesting {
    /// A worker connection as the service keeps one.
    private func worker(_ path: String, _ anchor: ReadLockAnchor) throws -> (Database, HeldSnapshot) {
        let database = try connection(path)
        anchor.holdSnapshots(of: database)
        let snapshot = try #require(database.heldSnapshot, "a WAL database gets a held snapshot")
        return (database, snapshot)
    }

    /// One read request on `database`, as the service runs it.
    private func readRequest(_ database: Database, _ snapshot: HeldSnapshot) throws -> Int64 {
        snapshot.beginRequest(reads: true)
        defer { snapshot.endRequest() }
        guard case .integer(let count)? = try database.cachedStatement("SELECT count(*) FROM item").rows().first?.first else { return -1 }
        return count
    }

    @Test func keepsItsSnapshotBetweenReadsWhileNothingCommits() throws {
        try withAnchor { path, anchor in
            let (database, snapshot) = try worker(path, anchor)
            #expect(try readRequest(database, snapshot) == 0)
            #expect(snapshot.isHolding)
            #expect(!database.isInAutocommit, "the read transaction outlived the request")
            #expect(try readRequest(database, snapshot) == 0)
            #expect(snapshot.isHolding)
        }
    }

    /// The header check: without it the held snapshot would still count 0 rows.
    @Test func aReadAfterAnotherConnectionsCommitSeesIt() throws {
        try withAnchor { path, anchor in
            let (database, snapshot) = try worker(path, anchor)
            let otherWriter = try connection(path)
            for expected in 0..<5 {
                #expect(try readRequest(database, snapshot) == Int64(expected))
                try insertPage(otherWriter)
            }
            #expect(try readRequest(database, snapshot) == 5)
        }
    }

    @Test func aReadAfterAWriteThroughTheGateSeesIt() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            let (database, snapshot) = try worker(path, anchor)
            for expected in 0..<5 {
                #expect(try readRequest(database, snapshot) == Int64(expected))
                try insertPage(through: gate)
            }
            #expect(try readRequest(database, snapshot) == 5)
        }
    }

    /// Other requests (writes, `$batch`) read as without it, each statement at the newest commit.
    @Test func holdsNothingForOtherRequests() throws {
        try withAnchor { path, anchor in
            let (database, snapshot) = try worker(path, anchor)
            _ = try readRequest(database, snapshot)
            #expect(snapshot.isHolding)
            snapshot.beginRequest(reads: false)
            #expect(database.isInAutocommit, "a write request ends the held snapshot before it runs")
            snapshot.endRequest()
            #expect(!snapshot.isHolding)
        }
    }

    /// An idle worker's snapshot would keep its frames in the WAL: a write of this process ends
    /// it when it begins, and the worker holds none until the write is over.
    @Test func aWriteEndsIdleSnapshotsUntilItIsOver() throws {
        try withAnchor { path, anchor in
            let (database, snapshot) = try worker(path, anchor)
            _ = try readRequest(database, snapshot)
            #expect(snapshot.isHolding)
            anchor.suspend()
            #expect(!snapshot.isHolding, "the write's start ended the idle worker's snapshot")
            #expect(database.isInAutocommit)
            _ = try readRequest(database, snapshot)
            #expect(!snapshot.isHolding, "no snapshot is held while a write is pending")
            anchor.resume()
            _ = try readRequest(database, snapshot)
            #expect(snapshot.isHolding)
        }
    }

    /// A worker in a request when the write began ends its snapshot itself when the request is over.
    @Test func aBusyWorkerEndsItsSnapshotAfterItsRequest() throws {
        try withAnchor { path, anchor in
            let (database, snapshot) = try worker(path, anchor)
            snapshot.beginRequest(reads: true)
            _ = try database.cachedStatement("SELECT count(*) FROM item").rows()
            let writer = Thread { anchor.suspend() }
            writer.start()
            while anchor.isHolding { Thread.sleep(forTimeInterval: 0.001) }
            #expect(!database.isInAutocommit, "the request keeps its snapshot to its end")
            snapshot.endRequest()
            #expect(!snapshot.isHolding)
            #expect(database.isInAutocommit)
            anchor.resume()
        }
    }

    /// Idle workers holding snapshots must not keep the WAL from starting over while this
    /// process writes (3,000 one-page commits fill it three times over unless it does).
    @Test func theWALStartsOverWhileIdleWorkersHeldSnapshots() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            let workers = try (0..<2).map { _ in try worker(path, anchor) }
            for commit in 0..<3000 {
                if commit % 500 == 0 {
                    for (database, snapshot) in workers { _ = try readRequest(database, snapshot) }
                }
                try insertPage(through: gate)
            }
            #expect(walSize(path) < 8 * 1024 * 1024, "the WAL grew to \(walSize(path)) bytes: held snapshots kept it from starting over")
            for (database, snapshot) in workers { #expect(try readRequest(database, snapshot) == 3000) }
        }
    }

    /// A connection that closes while the anchor still knows its snapshot: nothing touches it
    /// after. The anchor does not keep snapshots alive, so a closing connection's must leave its
    /// list, or ending idle snapshots would reach freed memory.
    @Test func aClosedConnectionIsLeftAlone() throws {
        try withAnchor { path, anchor in
            let (other, otherSnapshot) = try worker(path, anchor)
            do {
                let (database, snapshot) = try worker(path, anchor)
                _ = try readRequest(database, snapshot)
                #expect(anchor.snapshotCount == 2)
            }
            #expect(anchor.snapshotCount == 1, "the closed connection's snapshot is still on the anchor's list")
            _ = try readRequest(other, otherSnapshot)
            anchor.suspend()
            anchor.resume()
            anchor.tick()
            #expect(anchor.isHolding)
            #expect(try readRequest(other, otherSnapshot) == 0)
            #expect(otherSnapshot.isHolding)
        }
    }
}
