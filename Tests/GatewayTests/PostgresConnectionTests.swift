import Foundation
import ODataStore
import PostgresStore
import Testing

/// The libpq binding against a real server: values keep their kind and bytes both ways, errors
/// are told apart by SQLSTATE, a deadlock is retried, and a dropped connection is
/// re-established on the next statement.
@Suite(PostgresTestDatabase.enabled) struct PostgresConnectionTests {
    @Test func valuesRoundTripWithTheirKinds() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute("""
            CREATE TABLE v (id BIGINT PRIMARY KEY, small SMALLINT, flag BOOLEAN, real DOUBLE PRECISION,
                            amount NUMERIC(12,3), name TEXT COLLATE "C", data BYTEA)
            """)
        let rows: [[SQLValue]] = [
            [.integer(Int64.max), .integer(-32768), .integer(1), .real(2.5), .text("12.125"), .text("plain"), .blob([0, 1, 0xFF])],
            [.integer(Int64.min), .integer(7), .integer(0), .real(-1e300), .text("-0.5"), .text("zeta ünïcode ß 🚗"), .blob([])],
            [.integer(0), .null, .null, .real(.infinity), .null, .text(""), .null],
            [.integer(1), .integer(0), .integer(1), .real(0.1), .text("3"), .text("O'Brien \"q\" \\ {x}"), .blob(Array(0...255))],
        ]
        for row in rows {
            _ = try connection.query("INSERT INTO v VALUES ($1, $2, ($3 <> 0), $4, $5, $6, $7)", row)
        }
        let read = try connection.rows("SELECT id, small, flag, real, amount, name, data FROM v ORDER BY id")
        let expected = rows.sorted { a, b in
            guard case .integer(let x) = a[0], case .integer(let y) = b[0] else { return false }
            return x < y
        }.map { row in
            // NUMERIC(12,3) keeps three decimals.
            var row = row
            if case .text(let amount) = row[4] {
                row[4] = .text(["12.125": "12.125", "-0.5": "-0.500", "3": "3.000"][amount]!)
            }
            return row
        }
        #expect(read == expected)
    }

    @Test func statementsArePreparedOncePerConnection() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        for value in 1...5 {
            #expect(try connection.rows("SELECT $1 + 1", [.integer(Int64(value))]) == [[.integer(Int64(value + 1))]])
        }
        let prepared = try connection.rows("SELECT count(*) FROM pg_prepared_statements WHERE statement = 'SELECT $1 + 1'")
        #expect(prepared == [[.integer(1)]])
    }

    @Test func textHoldingNULIsRefusedNotCut() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        #expect(throws: PostgresError.self) { try connection.rows("SELECT $1", [.text("a\u{0}b")]) }
        #expect(try connection.rows("SELECT length($1)", [.text("a b")]) == [[.integer(3)]])
    }

    @Test func errorsAreToldApartBySQLState() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute("CREATE TABLE p (id BIGINT PRIMARY KEY); CREATE TABLE d (id BIGINT PRIMARY KEY, p BIGINT REFERENCES p (id))")
        _ = try connection.query("INSERT INTO p VALUES ($1)", [.integer(1)])
        func failure(_ body: () throws -> Void) -> PostgresError? {
            do { try body() } catch let error as PostgresError { return error } catch { Issue.record("\(error)") }
            return nil
        }
        let duplicate = failure { _ = try connection.query("INSERT INTO p VALUES ($1)", [.integer(1)]) }
        #expect(duplicate?.sqlState == "23505")
        #expect(duplicate?.isConstraintViolation == true && duplicate?.isBusy == false)
        let dangling = failure { _ = try connection.query("INSERT INTO d VALUES ($1, $2)", [.integer(1), .integer(99)]) }
        #expect(dangling?.sqlState == "23503" && dangling?.isConstraintViolation == true)
        _ = try connection.query("INSERT INTO d VALUES ($1, $2)", [.integer(1), .integer(1)])
        let stillReferenced = failure { _ = try connection.query("DELETE FROM p WHERE id = $1", [.integer(1)]) }
        #expect(stillReferenced?.sqlState == "23503")
        let typo = failure { _ = try connection.query("SELEKT 1") }
        #expect(typo?.sqlState == "42601" && typo?.isBusy == false && typo?.isConstraintViolation == false)
        // The connection is still usable after each failure.
        #expect(try connection.rows("SELECT count(*) FROM d") == [[.integer(1)]])
    }

    /// A write that locks a row another transaction changed and holds waits for it to end, then
    /// reads the row as it left it (READ COMMITTED with `FOR UPDATE`): no failure to serialize.
    @Test func aWriteWaitsForAnotherWritersRowThenSeesItsChange() throws {
        let database = try PostgresTestDatabase()
        let first = try database.connect()
        let second = try database.connect()
        try first.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, value BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0)")
        try second.execute("BEGIN")
        _ = try second.query("UPDATE counter SET value = value + 10 WHERE id = $1", [.integer(1)])
        let committed = DispatchSemaphore(value: 0)
        let handedOver = HandedOver(second)
        DispatchQueue.global().async {
            usleep(300_000)
            try? handedOver.connection.execute("COMMIT")
            committed.signal()
        }
        var attempts = 0
        let seen = try first.transaction(.write) { () throws -> SQLValue in
            attempts += 1
            let value = try first.rows("SELECT value FROM counter WHERE id = 1 FOR UPDATE")[0][0]
            _ = try first.query("UPDATE counter SET value = value + 1 WHERE id = $1", [.integer(1)])
            return value
        }
        committed.wait()
        #expect(attempts == 1)
        #expect(seen == .integer(10))
        #expect(try second.rows("SELECT value FROM counter") == [[.integer(11)]])
    }

    /// Two transactions lock two rows in opposite orders: the one the server picks (here `first`,
    /// whose deadlock check runs sooner) fails with 40P01, is run again once the other ended,
    /// and succeeds. With no retries left, the deadlock is busy (503).
    @Test func deadlocksAreRetriedThenBusy() throws {
        let database = try PostgresTestDatabase()
        let first = try database.connect()
        let second = try database.connect()
        try first.execute("CREATE TABLE counter (id BIGINT PRIMARY KEY, value BIGINT NOT NULL); INSERT INTO counter VALUES (1, 0), (2, 0)")
        let observer = try database.connect()
        let secondProcess = try #require(try second.rows("SELECT pg_backend_pid()").first?.first)
        /// `second` holds row 2, then (on another thread) waits for row 1, which `first` holds;
        /// returns once the server shows it waiting, however slowly that thread gets there.
        func crossLock(_ done: DispatchSemaphore) throws {
            try second.execute("BEGIN; SET LOCAL deadlock_timeout = '10s'")
            _ = try second.query("UPDATE counter SET value = value + 10 WHERE id = $1", [.integer(2)])
            let handedOver = HandedOver(second)
            DispatchQueue.global().async {
                _ = try? handedOver.connection.query("UPDATE counter SET value = value + 10 WHERE id = $1", [.integer(1)])
                try? handedOver.connection.execute("COMMIT")
                done.signal()
            }
            let limit = Date().addingTimeInterval(30)
            while try observer.rows("SELECT count(*) FROM pg_locks WHERE NOT granted AND pid = $1", [secondProcess]) == [[.integer(0)]],
                  Date() < limit {
                usleep(10_000)
            }
        }
        var attempts = 0
        let done = DispatchSemaphore(value: 0)
        try first.transaction(.write) {
            attempts += 1
            try first.execute("SET LOCAL deadlock_timeout = '100ms'")
            _ = try first.query("UPDATE counter SET value = value + 1 WHERE id = $1", [.integer(1)])
            if attempts == 1 { try crossLock(done) }
            _ = try first.query("UPDATE counter SET value = value + 1 WHERE id = $1", [.integer(2)])
        }
        done.wait()
        #expect(attempts == 2)
        #expect(try second.rows("SELECT value FROM counter ORDER BY id") == [[.integer(11)], [.integer(11)]])

        var busy: PostgresError?
        let doneAgain = DispatchSemaphore(value: 0)
        do {
            try first.transaction(.write, retries: 0) {
                try first.execute("SET LOCAL deadlock_timeout = '100ms'")
                _ = try first.query("UPDATE counter SET value = 0 WHERE id = $1", [.integer(1)])
                try crossLock(doneAgain)
                _ = try first.query("UPDATE counter SET value = 0 WHERE id = $1", [.integer(2)])
            }
        } catch let error as PostgresError {
            busy = error
        }
        doneAgain.wait()
        #expect(busy?.sqlState == "40P01")
        #expect(busy?.isAborted == true && busy?.isConstraintViolation == false)
        #expect(try second.rows("SELECT value FROM counter ORDER BY id") == [[.integer(21)], [.integer(21)]])
        #expect(!first.isInTransaction)
    }

    /// A connection handed to another thread while this one waits (never used by both at once).
    final class HandedOver: @unchecked Sendable {
        let connection: PostgresConnection
        init(_ connection: PostgresConnection) { self.connection = connection }
    }

    /// A read scope's BEGIN travels with its first statement and its COMMIT is not waited for:
    /// its statements still run in one `REPEATABLE READ READ ONLY` snapshot, and nothing of it
    /// outlives the scope, whether it returns, throws or ran no statement.
    @Test func aReadScopeIsOneSnapshotThatEndsWithIt() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        let other = try database.connect()
        try other.execute("CREATE TABLE item (id BIGINT PRIMARY KEY)")
        let isolation = try reader.readScope {
            try reader.rows("SELECT current_setting('transaction_isolation'), current_setting('transaction_read_only')")
        }
        #expect(isolation == [[.text("repeatable read"), .text("on")]])
        #expect(!reader.isInTransaction)
        let (first, second) = try reader.readScope {
            let first = try reader.rows("SELECT count(*) FROM item")
            _ = try other.query("INSERT INTO item VALUES ($1)", [.integer(1)])
            return (first, try reader.rows("SELECT count(*) FROM item"))
        }
        #expect(first == [[.integer(0)]] && second == [[.integer(0)]], "the insert committed during the scope is not in its snapshot")
        #expect(!reader.isInTransaction)
        #expect(try reader.rows("SELECT count(*) FROM item") == [[.integer(1)]], "the next read sees it")
        try reader.readScope {}
        #expect(!reader.isInTransaction)
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try reader.readScope {
                _ = try reader.rows("SELECT count(*) FROM item")
                throw Refused()
            }
        }
        #expect(!reader.isInTransaction)
        #expect(throws: PostgresError.self) { try reader.readScope { _ = try reader.rows("SELECT * FROM missing") } }
        #expect(!reader.isInTransaction)
        // A scope inside a write transaction runs in it: it sees the write's own row.
        try reader.transaction(.write) {
            _ = try reader.query("INSERT INTO item VALUES ($1)", [.integer(2)])
            #expect(try reader.readScope { try reader.rows("SELECT count(*) FROM item") } == [[.integer(2)]])
        }
        #expect(try other.rows("SELECT count(*) FROM item") == [[.integer(2)]])
    }

    /// The COMMIT a read scope sent without waiting is answered before the connection's next
    /// use, whether its answer is read at once (not yet arrived) or after it arrived, and a
    /// connection the server ended in the meantime is re-established.
    @Test func aReadScopesCommitIsTakenBeforeTheNextUse() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        let other = try database.connect()
        try other.execute("CREATE TABLE item (id BIGINT PRIMARY KEY)")
        func twoStatementScope() throws -> [[SQLValue]] {
            try reader.readScope {
                _ = try reader.rows("SELECT 1")
                return try reader.rows("SELECT count(*) FROM item")
            }
        }
        for key in 1...20 {
            #expect(try twoStatementScope() == [[.integer(Int64(key - 1))]])
            // At once: the COMMIT's answer is usually still on its way.
            _ = try other.query("INSERT INTO item VALUES ($1)", [.integer(Int64(key))])
            #expect(try reader.rows("SELECT count(*) FROM item") == [[.integer(Int64(key))]], "the scope's snapshot ended")
            #expect(!reader.isInTransaction)
        }
        #expect(try twoStatementScope() == [[.integer(20)]])
        Thread.sleep(forTimeInterval: 0.05)
        #expect(!reader.isInTransaction, "an answer that has arrived is taken")
        #expect(try twoStatementScope() == [[.integer(20)]])
        let pid = try other.rows("SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND datname = current_database()")
        #expect(pid.count == 1)
        _ = try other.query("SELECT pg_terminate_backend(CAST($1 AS INTEGER))", pid[0])
        Thread.sleep(forTimeInterval: 0.1)
        // The statement that finds the connection ended fails as busy, unless reading the
        // COMMIT's answer already found it; either way the next one runs on a new connection.
        do { _ = try reader.rows("SELECT 1") } catch { #expect(error.isConnectionFailure && error.isBusy, "\(error)") }
        #expect(try reader.rows("SELECT count(*) FROM item") == [[.integer(20)]])
        #expect(try reader.rows("SELECT pg_backend_pid()")[0] != pid[0])
    }

    /// A read scope's COMMIT travels with its last statement once a scope that began with the
    /// same statement ran as many; its statements still see one snapshot. One that runs more
    /// has its extra statement refused, runs again in one snapshot, and its first statement is
    /// not predicted again.
    @Test func aScopesCommitTravelsWithItsLastStatementOnceItsLengthIsKnown() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        let other = try database.connect()
        try other.execute("CREATE TABLE item (id BIGINT PRIMARY KEY)")
        var runs = 0
        var nextKey: Int64 = 0
        // `statements` counts, another gateway inserting a row between each two.
        func scope(_ statements: Int) throws -> [[[SQLValue]]] {
            try reader.readScope {
                runs += 1
                var counts: [[[SQLValue]]] = []
                for index in 0..<statements {
                    if index > 0 {
                        nextKey += 1
                        _ = try other.query("INSERT INTO item VALUES ($1)", [.integer(nextKey)])
                    }
                    counts.append(try reader.rows("SELECT count(*) FROM item"))
                }
                return counts
            }
        }
        func oneSnapshot(_ counts: [[[SQLValue]]]) -> Bool { Set(counts.map { "\($0)" }).count == 1 }
        #expect(oneSnapshot(try scope(2)))
        #expect(reader.readScopeTally.earlyCommitScopes == 0, "the first scope of its shape learns its length")
        #expect(oneSnapshot(try scope(2)))
        #expect(reader.readScopeTally.earlyCommitScopes == 1)
        #expect(!reader.isInTransaction)
        #expect(try reader.rows("SELECT count(*) FROM item") == [[.integer(nextKey)]], "the snapshot ended")
        runs = 0
        let longer = try scope(3)
        #expect(oneSnapshot(longer) && longer.count == 3)
        #expect(runs == 2 && reader.readScopeTally.earlyCommitOverruns == 1, "the third statement was refused, the scope run again")
        #expect(!reader.isInTransaction)
        #expect(oneSnapshot(try scope(2)))
        #expect(reader.readScopeTally.earlyCommitScopes == 1, "a shape that ran longer is not predicted again")
        #expect(reader.readScopeTally.overrunScopes == 0)
    }

    /// Once a scope of one shape has run, the next one's later statements, whose parameters
    /// were all the first statement's (a single entity's expansion takes its key), are sent in
    /// the first statement's round trip with the next scope's own values, and still see one
    /// snapshot. A later statement asked with other parameters than predicted is refused, the
    /// scope runs again, and only its COMMIT is predicted from then on.
    @Test func aScopesLaterStatementsTravelWithItsFirstWhenTheyTakeItsParameters() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        let other = try database.connect()
        try other.execute("CREATE TABLE owner (id BIGINT PRIMARY KEY)")
        try other.execute("CREATE TABLE item (id BIGINT PRIMARY KEY, owner BIGINT)")
        for owner in 1...3 { _ = try other.query("INSERT INTO owner VALUES ($1)", [.integer(Int64(owner))]) }
        var nextItem: Int64 = 0
        var runs = 0
        // An owner and its items' count, another gateway adding an item of that owner between.
        func ownerAndItems(_ owner: Int64, itemsOf itemOwner: Int64? = nil) throws -> [[SQLValue]] {
            try reader.readScope {
                runs += 1
                let found = try reader.rows("SELECT id FROM owner WHERE id = $1", [.integer(owner)])
                nextItem += 1
                _ = try other.query("INSERT INTO item VALUES ($1, $2)", [.integer(nextItem), .integer(owner)])
                return found + (try reader.rows("SELECT count(*) FROM item WHERE owner = $1", [.integer(itemOwner ?? owner)]))
            }
        }
        let tally = reader.readScopeTally
        #expect(try ownerAndItems(1) == [[.integer(1)], [.integer(0)]], "the first scope of its shape learns it")
        #expect(tally.prefetchedStatements == 0 && tally.earlyCommitScopes == 0)
        #expect(try ownerAndItems(2) == [[.integer(2)], [.integer(0)]], "owner 2's count, from the scope's snapshot")
        #expect(tally.prefetchedStatements == 1 && tally.earlyCommitScopes == 1)
        #expect(try ownerAndItems(2) == [[.integer(2)], [.integer(1)]])
        #expect(tally.prefetchedStatements == 2)
        #expect(!reader.isInTransaction)

        runs = 0
        #expect(try ownerAndItems(3, itemsOf: 1) == [[.integer(3)], [.integer(1)]], "not the predicted count of owner 3")
        #expect(runs == 2 && tally.earlyCommitOverruns == 1, "the count was refused, the scope run again")
        #expect(tally.prefetchedStatements == 3)
        #expect(try ownerAndItems(3) == [[.integer(3)], [.integer(2)]])
        #expect(tally.prefetchedStatements == 3 && tally.earlyCommitScopes == 4, "its COMMIT still travels with the count")
        #expect(!reader.isInTransaction && tally.overrunScopes == 0)
    }

    /// A later statement sent ahead that fails fails its scope when asked for, and leaves the
    /// connection out of any transaction; one the scope does not ask for is not reported.
    @Test func aFailingStatementSentAheadFailsOnlyTheScopeThatAsksForIt() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        func quotient(_ divisor: Int64, ask: Bool = true) throws -> [[SQLValue]] {
            try reader.readScope {
                let first = try reader.rows("SELECT CAST($1 AS BIGINT)", [.integer(divisor)])
                guard ask else { return first }
                return try reader.rows("SELECT 10 / CAST($1 AS BIGINT)", [.integer(divisor)])
            }
        }
        #expect(try quotient(5) == [[.integer(2)]])
        #expect(try quotient(2) == [[.integer(5)]])
        #expect(reader.readScopeTally.prefetchedStatements == 1)
        var failed: PostgresError?
        do { _ = try quotient(0) } catch { failed = error as? PostgresError }
        #expect(failed?.sqlState == "22012", "division by zero: \(String(describing: failed))")
        #expect(!reader.isInTransaction)
        #expect(try quotient(0, ask: false) == [[.integer(0)]], "the failed division was not asked for")
        #expect(!reader.isInTransaction)
        #expect(try quotient(1) == [[.integer(10)]])
        #expect(reader.readScopeTally.prefetchedStatements == 4 && reader.readScopeTally.overrunScopes == 0)
    }

    /// A scope whose statements would all be sent at once finds its connection ended (as a
    /// server restart ends it): it fails as busy, and the next scope of its plan runs on a new
    /// connection, its statements prepared again and still sent at once.
    @Test func aScopeSentAtOnceOnALostConnectionFailsAsBusyAndTheNextReconnects() throws {
        let database = try PostgresTestDatabase()
        let reader = try database.connect()
        let admin = try database.connect()
        func doubledAndTripled(_ value: Int64) throws -> [[SQLValue]] {
            try reader.readScope {
                try reader.rows("SELECT $1 * 2", [.integer(value)]) + (try reader.rows("SELECT $1 * 3", [.integer(value)]))
            }
        }
        #expect(try doubledAndTripled(1) == [[.integer(2)], [.integer(3)]])
        #expect(try doubledAndTripled(2) == [[.integer(4)], [.integer(6)]])
        #expect(reader.readScopeTally.prefetchedStatements == 1)
        let pid = try reader.rows("SELECT pg_backend_pid()")[0][0]
        _ = try admin.query("SELECT pg_terminate_backend(CAST($1 AS INTEGER))", [pid])
        var lost: PostgresError?
        do { _ = try doubledAndTripled(3) } catch { lost = error as? PostgresError }
        #expect(lost?.isConnectionFailure == true && lost?.isBusy == true, "\(String(describing: lost))")
        #expect(!reader.isInTransaction)
        #expect(try doubledAndTripled(5) == [[.integer(10)], [.integer(15)]])
        #expect(reader.readScopeTally.prefetchedStatements == 2, "counted when answered: the lost pipeline was not")
        #expect(try reader.rows("SELECT pg_backend_pid()")[0][0] != pid)
    }

    /// A write transaction that throws leaves nothing behind.
    @Test func aThrowingTransactionRollsBack() throws {
        struct Refused: Error {}
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)")
        #expect(throws: Refused.self) {
            try connection.transaction(.write) {
                _ = try connection.query("INSERT INTO t VALUES ($1)", [.integer(1)])
                throw Refused()
            }
        }
        #expect(!connection.isInTransaction)
        #expect(try connection.rows("SELECT count(*) FROM t") == [[.integer(0)]])
    }

    /// The server ends the connection (as a restart does): the statement that sees it fails as
    /// busy, and the next one runs on a new connection, with its statements prepared again.
    @Test func aDroppedConnectionIsReestablishedOnTheNextStatement() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let admin = try database.connect()
        let pid = try connection.rows("SELECT pg_backend_pid()")[0][0]
        #expect(try connection.rows("SELECT $1 * 2", [.integer(21)]) == [[.integer(42)]])
        _ = try admin.query("SELECT pg_terminate_backend(CAST($1 AS INTEGER))", [pid])
        var lost: PostgresError?
        do { _ = try connection.rows("SELECT $1 * 2", [.integer(21)]) } catch { lost = error }
        #expect(lost?.isConnectionFailure == true && lost?.isBusy == true, "\(String(describing: lost))")
        #expect(try connection.rows("SELECT $1 * 2", [.integer(21)]) == [[.integer(42)]])
        #expect(try connection.rows("SELECT pg_backend_pid()")[0][0] != pid)
    }

    @Test func anUnreachableServerIsAConnectionFailure() throws {
        var error: PostgresError?
        do { _ = try PostgresConnection(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2") } catch let failure { error = failure }
        #expect(error?.isConnectionFailure == true && error?.isBusy == true)
    }
}
