import Foundation
import ODataStore
import Testing

/// `ReadLockAnchor` holds a WAL read lock between requests. Holding it must never cost what it
/// costs a long reader in SQLite: a WAL that checkpoints stop at and that never starts over.
/// These tests write enough to pass the auto-checkpoint (1,000 pages) several times and check
/// that the WAL file stops growing, for this process's writes and for another writer's.
/// (A connection of its own, not the gate's, stands for another process: SQLite checks the read
/// locks of connections in the same process the way it checks other processes'.)
@Suite struct ReadLockAnchorTests: WALDatabaseTesting {
    private func count(_ database: Database) throws -> [[SQLValue]] {
        try database.rows("SELECT count(*) FROM item")
    }

    /// 3,000 one-page commits fill the WAL three times over unless it starts over after each
    /// checkpoint; it holds about 1,000 frames of 4 KiB when it does.
    private let commits = 3000
    private let walBound = 8 * 1024 * 1024

    @Test func holdsBetweenWritesAndReleasesDuringThem() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            #expect(anchor.isHolding)
            let (_, commit) = try gate.write { database in
                #expect(!anchor.isHolding, "a write of this process runs with the anchor released")
                try database.cachedStatement("INSERT INTO item (data) VALUES (x'01')").run()
            }
            try commit.wait()
            #expect(anchor.isHolding)
        }
    }

    /// Without a commit in the WAL, every read transaction asks the file system for the
    /// database's size; the anchor's first commit records it and changes no value.
    @Test func givesAFreshWALACommitThatChangesNothing() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        do {
            let setup = try connection(path)
            try setup.execute("PRAGMA user_version = 42")
        }
        #expect(walSize(path) == 0, "the last connection to close removed the WAL")
        let anchor = try ReadLockAnchor(path: path)
        defer { anchor.close() }
        #expect(walSize(path) > 0)
        #expect(try connection(path).rows("PRAGMA user_version") == [[.integer(42)]])
    }

    /// Writers suspend the anchor before they wait for the gate and resume it after they leave
    /// it: the first to finish must not take the lock while another is still pending.
    @Test func staysReleasedWhileAnyWriteIsPending() throws {
        try withAnchor { path, anchor in
            anchor.suspend()
            anchor.suspend()
            anchor.resume()
            #expect(!anchor.isHolding, "one write is still pending")
            anchor.tick()
            #expect(!anchor.isHolding, "ticks leave it alone while a write is pending")
            anchor.resume()
            #expect(anchor.isHolding)
        }
    }

    @Test func theWALStartsOverUnderConcurrentWriters() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            let writers = 4
            let failures = NSLock()
            nonisolated(unsafe) var failed = 0
            DispatchQueue.concurrentPerform(iterations: writers) { _ in
                do {
                    for _ in 0..<(commits / writers) { try insertPage(through: gate) }
                } catch {
                    failures.withLock { failed += 1 }
                }
            }
            #expect(failed == 0)
            #expect(anchor.isHolding, "the last writer to leave took the lock again")
            #expect(walSize(path) < walBound, "the WAL grew to \(walSize(path)) bytes: checkpoints or restarts were held back")
        }
    }

    @Test func readersSeeTheNewestCommitWhileItHolds() throws {
        try withAnchor { path, anchor in
            let reader = try connection(path)
            let otherWriter = try connection(path)
            #expect(try count(reader) == [[.integer(0)]])
            try insertPage(otherWriter)
            #expect(anchor.isHolding)
            #expect(try count(reader) == [[.integer(1)]], "a read transaction starts at the newest commit, anchor or not")
        }
    }

    @Test func theWALStartsOverUnderThisProcesssWrites() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            for _ in 0..<commits { try insertPage(through: gate) }
            #expect(anchor.isHolding)
            #expect(walSize(path) < walBound, "the WAL grew to \(walSize(path)) bytes: checkpoints or restarts were held back")
            #expect(try count(connection(path)) == [[.integer(Int64(commits))]])
        }
    }

    @Test func stepsAsideWhileAnotherProcessWrites() throws {
        try withAnchor { path, anchor in
            let gate = WriteGate(path: path, anchor: anchor)
            defer { gate.close() }
            let otherWriter = try connection(path)

            anchor.tick()
            #expect(anchor.isHolding, "nothing changed")
            try insertPage(through: gate)
            anchor.tick()
            #expect(anchor.isHolding, "this process's own write is no reason to step aside")

            try insertPage(otherWriter)
            anchor.tick()
            #expect(!anchor.isHolding, "another writer changed the database")
            try insertPage(otherWriter)
            anchor.tick()
            #expect(!anchor.isHolding, "it is still writing")
            anchor.tick()
            #expect(anchor.isHolding, "a tick without changes takes the lock again")
        }
    }

    @Test func theWALStartsOverUnderAnotherProcesssWrites() throws {
        try withAnchor { path, anchor in
            let otherWriter = try connection(path)
            for commit in 0..<commits {
                if commit % 100 == 0 { anchor.tick() }
                try insertPage(otherWriter)
            }
            #expect(walSize(path) < walBound, "the WAL grew to \(walSize(path)) bytes: the anchor held back another writer")
        }
    }

    @Test func itsThreadTicksUntilClosed() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        let anchor = try ReadLockAnchor(path: path, tickInterval: 0.01)
        anchor.startTicking()
        let otherWriter = try connection(path)
        let deadline = Date().addingTimeInterval(5)
        // Writes until a tick of the anchor's own thread has seen them.
        while anchor.isHolding && Date() < deadline {
            try insertPage(otherWriter)
            Thread.sleep(forTimeInterval: 0.002)
        }
        #expect(!anchor.isHolding, "the ticker saw another writer")
        let reheld = Date().addingTimeInterval(5)
        while !anchor.isHolding && Date() < reheld { Thread.sleep(forTimeInterval: 0.005) }
        #expect(anchor.isHolding, "the ticker took the lock again once the writes stopped")

        anchor.close()
        #expect(!anchor.isHolding)
        anchor.tick()
        #expect(!anchor.isHolding, "a closed anchor stays released")
    }
}
