import Foundation
import ODataStore
import SQLiteStore
import Testing

/// `ReadScope` owns every read transaction of a connection: the reads inside one scope see one
/// snapshot, writes commit beside it, and nothing of it outlives the scope.
@Suite struct ReadScopeTests: WALDatabaseTesting {
    private func count(_ database: Database) throws -> Int64 {
        guard case .integer(let count)? = try database.cachedStatement("SELECT count(*) FROM item").rows().first?.first else { return -1 }
        return count
    }

    /// A row committed by another connection during the scope is not in it, and is in the next.
    @Test func theReadsOfAScopeSeeOneSnapshot() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        let reader = try connection(path)
        let otherWriter = try connection(path)
        let (first, second) = try reader.readScope {
            let first = try count(reader)
            try insertPage(otherWriter)
            return (first, try count(reader))
        }
        #expect(first == 0)
        #expect(second == 0, "the insert committed during the scope is not in its snapshot")
        #expect(try count(reader) == 1, "the next read sees it")
    }

    /// A write through the service's gate commits, and is acknowledged, while a read scope is
    /// open on another connection: readers never block the writer.
    @Test func writesAreNotBlockedByAnOpenScope() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        let gate = WriteGate(path: path)
        defer { gate.close() }
        let reader = try connection(path)
        try reader.readScope {
            #expect(try count(reader) == 0)
            let started = Date()
            for _ in 0..<3 { try insertPage(through: gate) }
            #expect(Date().timeIntervalSince(started) < 4, "no write waited for the reader's busy timeout")
            #expect(try count(reader) == 0)
        }
        #expect(try count(reader) == 3)
    }

    /// Nothing outlives a scope, whether its body returns or throws: the connection is back in
    /// autocommit, so its snapshot holds back neither the WAL's checkpoint nor later reads.
    @Test func nothingOutlivesAScope() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        let reader = try connection(path)
        let writer = try connection(path)
        _ = try reader.readScope { try count(reader) }
        #expect(reader.isInAutocommit)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try reader.readScope {
                _ = try count(reader)
                throw Refused()
            }
        }
        #expect(reader.isInAutocommit)
        for _ in 0..<3 { try insertPage(writer) }
        let checkpoint = try writer.rows("PRAGMA wal_checkpoint(TRUNCATE)").first ?? []
        #expect(checkpoint.first == .integer(0), "no reader held the checkpoint back")
        #expect(walSize(path) == 0)
    }

    /// A scope inside a transaction (a write's own reads) runs in that transaction.
    @Test func aScopeInsideATransactionJoinsIt() throws {
        let (path, cleanup) = try makeDatabase()
        defer { cleanup() }
        let database = try connection(path)
        try database.transaction {
            try database.execute("INSERT INTO item (data) VALUES (x'07')")
            #expect(try database.readScope { try count(database) } == 1, "the transaction's own write is seen")
            #expect(!database.isInAutocommit, "the scope did not end the enclosing transaction")
        }
        #expect(try count(database) == 1)
    }

    /// Through the service: a page and its `$inlinecount` are two statements of one request,
    /// read in one scope, so they agree while another connection keeps adding and removing
    /// the people they count.
    @Test func aPageAndItsCountAgreeWhileOthersWrite() throws {
        let gateway = try TestGateway()
        let path = gateway.databasePath
        let done = DispatchSemaphore(value: 0)
        let target = TestGateway.encodeQuery("Person?$filter=lastName eq 'Churn'&$inlinecount=allpages&$select=personID")
        DispatchQueue.global().async {
            defer { done.signal() }
            guard let writer = try? Database(path: path) else { return }
            for round in 0..<400 {
                let sql = round % 3 == 2 ? "DELETE FROM Person WHERE lastName = 'Churn' AND personID IN (SELECT min(personID) FROM Person WHERE lastName = 'Churn')"
                    : "INSERT INTO Person (firstName, lastName, createDate) VALUES ('C', 'Churn', 0)"
                try? writer.execute(sql)
            }
        }
        var checked = 0
        let deadline = Date().addingTimeInterval(10)
        while checked < 150 && Date() < deadline {
            let d = try #require(try gateway.get(target).d() as? [String: Any])
            let results = try #require(d["results"] as? [Any])
            #expect(d["__count"] as? String == String(results.count), "the count and the page of one request")
            checked += 1
        }
        done.wait()
        #expect(checked > 0)
    }
}
