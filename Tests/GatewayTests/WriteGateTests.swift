import Foundation
import ODataStore
import SQLiteStore
import Testing

/// `WriteGate`: writes that arrive together share one commit, each in a savepoint of its own, and
/// none counts before its commit is decided. Run on a real SQLite file in WAL mode.
@Suite struct WriteGateTests {
    /// A fresh database with one table, and a gate on it; both gone after `body`.
    private func withGate(_ body: (String, WriteGate) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gate-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.appendingPathComponent("test.sqlite").path
        let setup = try Database(path: path)
        try setup.configureForService()
        try setup.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        // A long join window: the writes that `together` queues must form one group even on a
        // loaded machine, where a waiting writer may take longer than 1 ms to get the mutex.
        let gate = WriteGate(path: path, joinWindow: 10)
        defer { gate.close() }
        try body(path, gate)
    }

    private func names(_ path: String) throws -> [String] {
        try Database(path: path).rows("SELECT name FROM item ORDER BY id").map { row in
            guard case .text(let name) = row[0] else { return "?" }
            return name
        }
    }

    private func insert(_ name: String) -> @Sendable (Database) throws -> Void {
        { database in try database.cachedStatement("INSERT INTO item (name) VALUES (?)").run([.text(name)]) }
    }

    /// Runs `writes` at once: the first one's body waits until the others have had time to
    /// queue behind it, so that all of them reach the gate while it is busy. Returns each
    /// write's outcome: nil when committed, the error otherwise.
    /// (A thread each: `concurrentPerform` would run no more at once than there are cores.)
    private func together(_ gate: WriteGate, _ writes: [@Sendable (Database) throws -> Void]) -> [Error?] {
        let outcomes = Outcomes(count: writes.count)
        let finished = DispatchGroup()
        for (index, write) in writes.enumerated() {
            finished.enter()
            Thread {
                if index > 0 { Thread.sleep(forTimeInterval: 0.05) }
                do {
                    let (_, commit) = try gate.write { database in
                        if index == 0 { Thread.sleep(forTimeInterval: 0.3) }
                        try write(database)
                    }
                    try commit.wait()
                    outcomes.set(index, nil)
                } catch {
                    outcomes.set(index, error)
                }
                finished.leave()
            }.start()
        }
        finished.wait()
        return outcomes.values
    }

    @Test func writesThatArriveTogetherShareACommit() throws {
        try withGate { path, gate in
            let writes = (0..<8).map { insert("item\($0)") }
            let outcomes = together(gate, writes)
            #expect(outcomes.allSatisfy { $0 == nil })
            let stored = try names(path)
            #expect(Set(stored) == Set((0..<8).map { "item\($0)" }))
            let statistics = gate.statistics
            #expect(statistics.writesCommitted == 8)
            #expect(statistics.commits <= 2, "8 writes that waited for the gate together took \(statistics.commits) commits")
        }
    }

    @Test func aFailedWriteRollsBackOnlyItself() throws {
        try withGate { path, gate in
            struct Refused: Error {}
            let halfDone = insert("half done")
            let outcomes = together(gate, [
                insert("first"),
                { database in
                    try halfDone(database)
                    throw Refused()
                },
                insert("first"),  // breaks the UNIQUE constraint
                insert("last"),
            ])
            #expect(outcomes[0] == nil && outcomes[3] == nil)
            #expect(outcomes[1] is Refused)
            #expect((outcomes[2] as? SQLiteError)?.isConstraintViolation == true)
            let stored = try names(path)
            #expect(stored == ["first", "last"], "the failed writes left nothing behind")
            #expect(gate.statistics.commits == 1, "all four shared the transaction")
        }
    }

    /// When the transaction a group shares is lost, every write in it fails, and none is committed.
    @Test func aLostTransactionFailsEveryWriteInIt() throws {
        try withGate { path, gate in
            let breaker = insert("breaker")
            let outcomes = together(gate, [
                insert("early"),
                { database in
                    try breaker(database)
                    // Ends the shared transaction, as SQLite does itself after some I/O errors.
                    try database.execute("ROLLBACK")
                },
            ])
            #expect((outcomes[0] as? SQLiteError)?.isAborted == true, "the write before it was lost with the transaction: \(String(describing: outcomes[0]))")
            #expect(outcomes[1] != nil)
            let (_, commit) = try gate.write(insert("late"))
            try commit.wait()
            #expect(try names(path) == ["late"], "a write after the loss starts a new transaction")
        }
    }

    @Test func aWriteIsVisibleToOthersOnlyOnceCommitted() throws {
        try withGate { path, gate in
            let reader = try Database(path: path)
            let seenInside = try gate.write { database in
                try insert("x")(database)
                return try reader.rows("SELECT count(*) FROM item")
            }
            #expect(seenInside.0 == [[.integer(0)]], "another connection does not see a write before its commit")
            try seenInside.1.wait()
            #expect(try reader.rows("SELECT count(*) FROM item") == [[.integer(1)]])
        }
    }

    @Test func closingCommitsWhatIsPendingAndRefusesMore() throws {
        try withGate { path, gate in
            let (_, commit) = try gate.write(insert("pending"))
            gate.close()
            try commit.wait()
            #expect(try names(path) == ["pending"])
            #expect(throws: SQLiteError.self) { try gate.write(insert("too late")) }
        }
    }

    @Test func aCallbackHearsOfTheCommitOnce() throws {
        try withGate { _, gate in
            let (_, commit) = try gate.write(insert("x"))
            let heard = Outcomes(count: 2)
            let done = DispatchSemaphore(value: 0)
            commit.whenDecided { failure in
                heard.set(0, failure)
                done.signal()
            }
            #expect(done.wait(timeout: .now() + 10) == .success)
            // Asked after the decision, it answers at once.
            commit.whenDecided { failure in heard.set(1, failure) }
            #expect(heard.values.allSatisfy { $0 == nil })
        }
    }
}

/// Outcomes written by concurrent threads, read once they are done.
private final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Error?]

    init(count: Int) { storage = Array(repeating: nil, count: count) }

    func set(_ index: Int, _ error: Error?) { lock.withLock { storage[index] = error } }

    var values: [Error?] { lock.withLock { storage } }
}
