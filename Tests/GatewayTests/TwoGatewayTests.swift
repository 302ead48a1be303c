import Foundation
import ODataStore
import PostgresStore
import Testing

/// Two `dealer-gateway` processes serving one PostgreSQL database, as behind a load balancer:
/// neither holds state the other lacks, and an ETag check and its update are one atomic step
/// across both.
@Suite(PostgresTestDatabase.enabled, .serialized) struct TwoGatewayTests {
    /// Two gateways on a new database: the first creates and seeds it, the second finds it.
    static func gateways(_ database: PostgresTestDatabase) throws -> (GatewayProcess, GatewayProcess) {
        let arguments = ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData", "--database", database.url,
                         "--port", "0", "--threads", "2"]
        let first = try GatewayProcess(arguments: arguments)
        let second = try GatewayProcess(arguments: arguments)
        return (first, second)
    }

    static func send(_ gateway: GatewayProcess, _ method: String, _ target: String, body: String = "",
                     headers: [String: String] = [:]) throws -> RawHTTPResponse {
        try send(port: gateway.port, method, target, body: body, headers: headers)
    }

    static func send(port: UInt16, _ method: String, _ target: String, body: String = "",
                     headers: [String: String] = [:]) throws -> RawHTTPResponse {
        var headers = headers
        headers["Accept"] = "application/json"
        if !body.isEmpty && headers["Content-Type"] == nil { headers["Content-Type"] = "application/json" }
        return try RawHTTPClient.send(port: port, method: method, target: "/CarDealer.svc/" + target, headers: headers,
                                      body: Array(body.utf8))
    }

    /// The same If-Match sent to both at once: exactly one update wins (204), the other finds
    /// the entity changed (412), round after round. In the odd rounds a third connection holds
    /// the row locked until both gateways have checked the tag and wait to update it, so that
    /// both checks pass against the same version: only an atomic check and update then refuse
    /// the second (a read-committed re-check of the UPDATE alone would let both win).
    @Test func theSameIfMatchToBothGivesOne204AndOne412() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        defer { _ = first.stop(); _ = second.stop() }
        let locker = try database.connect()
        for round in 0..<8 {
            let person = try first.get("Person(\(round + 1))")
            let tag = try #require(person.header("ETag"))
            let holdsLock = round % 2 == 1
            if holdsLock {
                try locker.execute("BEGIN")
                _ = try locker.rows("SELECT 1 FROM \"Person\" WHERE \"personID\" = $1 FOR UPDATE", [.integer(Int64(round + 1))])
            }
            let statuses = Statuses()
            let group = DispatchGroup()
            for (index, port) in [first.port, second.port].enumerated() {
                DispatchQueue.global().async(group: group) {
                    let status = (try? Self.send(port: port, "MERGE", "Person(\(round + 1))", body: #"{"lastName":"Gateway\#(index)"}"#,
                                                 headers: ["If-Match": tag]).status) ?? -1
                    statuses.append(status)
                }
            }
            if holdsLock {
                usleep(500_000)
                try locker.execute("COMMIT")
            }
            group.wait()
            #expect(statuses.sorted == [204, 412], "round \(round)")
            // Both read the winner's change.
            let one = try (first.get("Person(\(round + 1))").d() as? [String: Any])?["lastName"] as? String
            let other = try (second.get("Person(\(round + 1))").d() as? [String: Any])?["lastName"] as? String
            #expect(one != nil && one == other && one!.hasPrefix("Gateway"))
        }
    }

    /// The answers of requests sent from several threads.
    final class Statuses: @unchecked Sendable {
        private let lock = NSLock()
        private var statuses: [Int] = []
        func append(_ status: Int) { lock.withLock { statuses.append(status) } }
        var sorted: [Int] { lock.withLock { statuses.sorted() } }

        /// Sends `operations` as one change set to the gateway on `port` and keeps the
        /// `$batch`'s status and each operation's (-1 when it could not be sent).
        func sendChangeSet(_ operations: [BatchTests.Operation], port: UInt16) {
            let body = BatchTests.body([operations])
            guard let answer = try? TwoGatewayTests.send(port: port, "POST", "$batch", body: body,
                                                         headers: ["Content-Type": "multipart/mixed; boundary=batch_test"]) else {
                append(-1)
                return
            }
            append(answer.status)
            for line in answer.text.split(separator: "\r\n") where line.hasPrefix("HTTP/1.1 ") {
                append(Int(line.dropFirst(9).prefix(3)) ?? -1)
            }
        }
    }

    @Test func aWriteThroughOneIsReadThroughTheOther() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        defer { _ = first.stop(); _ = second.stop() }
        let created = try Self.send(first, "POST", "Person",
                                    body: #"{"firstName":"Ada","lastName":"Lovelace","createDate":"\/Date(1577836800000)\/"}"#)
        #expect(created.status == 201, "\(created.text)")
        let key = try #require((created.d() as? [String: Any])?["personID"] as? Int)
        let read = try second.get("Person(\(key))")
        #expect(read.status == 200)
        #expect(try (read.d() as? [String: Any])?["lastName"] as? String == "Lovelace")
        #expect(read.header("ETag") == created.header("ETag"))

        #expect(try Self.send(second, "MERGE", "Person(\(key))", body: #"{"firstName":"Augusta"}"#).status == 204)
        #expect(try (first.get("Person(\(key))").d() as? [String: Any])?["firstName"] as? String == "Augusta")
        #expect(try Self.send(first, "DELETE", "Person(\(key))").status == 204)
        #expect(try second.get("Person(\(key))").status == 404)
        // Keys come from the database's sequence: the second gateway's insert does not take the first's.
        let next = try Self.send(second, "POST", "Person",
                                 body: #"{"firstName":"Grace","lastName":"Hopper","createDate":"\/Date(1577836800000)\/"}"#)
        #expect(try (next.d() as? [String: Any])?["personID"] as? Int == key + 1)
    }

    /// A change set through one gateway is seen from the other whole, or not at all.
    @Test func aChangeSetThroughOneIsAllOrNothingFromTheOther() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        defer { _ = first.stop(); _ = second.stop() }
        let stamp = #""\/Date(1577836800000)\/""#
        let failing = BatchTests.body([[
            BatchTests.Operation(method: "POST", uri: "Car", body: #"{"make":"Saab","model":"900","createStamp":\#(stamp)}"#, contentID: "1"),
            BatchTests.Operation(method: "MERGE", uri: "Person(2)", body: #"{"firstName":"Changed"}"#),
            BatchTests.Operation(method: "DELETE", uri: "Person(1)"),  // 409: Bob has cars
        ]])
        let carsBefore = try second.get("Car/$count").text
        let refused = try Self.send(first, "POST", "$batch", body: failing, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
        #expect(refused.status == 202)
        #expect(refused.text.contains("409"))
        #expect(try second.get("Car/$count").text == carsBefore)
        #expect(try (second.get("Person(2)").d() as? [String: Any])?["firstName"] as? String != "Changed")

        let applied = BatchTests.body([[
            BatchTests.Operation(method: "POST", uri: "Car", body: #"{"make":"Saab","model":"9-5","createStamp":\#(stamp)}"#, contentID: "1"),
            BatchTests.Operation(method: "MERGE", uri: "Person(2)", body: #"{"firstName":"Changed"}"#),
        ]])
        let accepted = try Self.send(first, "POST", "$batch", body: applied, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
        #expect(accepted.status == 202)
        #expect(try second.get("Car/$count").text == String(Int(carsBefore)! + 1))
        #expect(try (second.get("Person(2)").d() as? [String: Any])?["firstName"] as? String == "Changed")
    }

    /// Change sets over the same rows, sent at once through both gateways: they wait for
    /// each other's row locks and all commit. None is answered 5xx (a serialization failure
    /// that outlived its retries), and each MERGE is applied: the rows end up with one of the
    /// values sent. Rows are changed in key order, as most clients do, so that no two change
    /// sets deadlock (a deadlock is retried too, but costs the server's `deadlock_timeout`).
    @Test func concurrentChangeSetsOverTheSameRowsThroughBothGatewaysAllCommit() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        defer { _ = first.stop(); _ = second.stop() }
        let stamp = #""\/Date(1577836800000)\/""#
        // Eight clients, four to each gateway's two workers: four change sets at a time, each
        // changing the same six rows six times over.
        let clients = 8, batchesPerClient = 5, rows = 6, rounds = 6
        let statuses = Statuses()
        let group = DispatchGroup()
        for client in 0..<clients {
            let port = client % 2 == 0 ? first.port : second.port
            DispatchQueue.global().async(group: group) {
                for _ in 0..<batchesPerClient {
                    // Person(1...6) in key order, six times, and one insert.
                    var operations = (0..<rows * rounds).map { $0 % rows + 1 }.map { key in
                        BatchTests.Operation(method: "MERGE", uri: "Person(\(key))", body: #"{"lastName":"Client\#(client)"}"#)
                    }
                    operations.append(BatchTests.Operation(method: "POST", uri: "Car",
                                                           body: #"{"make":"Saab","model":"C\#(client)","createStamp":\#(stamp)}"#))
                    statuses.sendChangeSet(operations, port: port)
                }
            }
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "the change sets did not finish within 2 minutes")
        let answered = statuses.sorted
        #expect(answered.filter { $0 == 202 }.count == clients * batchesPerClient, "\(answered)")
        #expect(answered.filter { $0 == 204 }.count == clients * batchesPerClient * rows * rounds, "\(answered)")
        #expect(answered.filter { $0 == 201 }.count == clients * batchesPerClient, "\(answered)")
        #expect(answered.allSatisfy { $0 == 201 || $0 == 202 || $0 == 204 }, "\(answered)")
        for key in 1...rows {
            let name = try (second.get("Person(\(key))").d() as? [String: Any])?["lastName"] as? String
            #expect(name?.hasPrefix("Client") == true)
        }
    }

    /// Change sets that change the same rows in opposite orders (by entity and by property
    /// URI), sent at once through both gateways: each locks the rows it addresses in one order
    /// before its first operation, so they wait for each other and never deadlock (the server
    /// counts none), none is answered 5xx, and every change is there.
    @Test func changeSetsOverTheSameRowsInOppositeOrdersDoNotDeadlock() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        var stopped = false
        defer { if !stopped { _ = first.stop(); _ = second.stop() } }
        let stamp = #""\/Date(1577836800000)\/""#
        let carsBefore = try Int(second.get("Car/$count").text) ?? -1
        let clients = 8, batchesPerClient = 4, rows = 6
        let statuses = Statuses()
        let group = DispatchGroup()
        for client in 0..<clients {
            let port = client % 2 == 0 ? first.port : second.port
            // One gateway's clients in ascending key order, the other's in descending.
            let keys = client % 2 == 0 ? Array(1...rows) : Array((1...rows).reversed())
            group.enter()
            // A thread each, so that all the clients send at once (the global queue may run
            // only as many blocking tasks at a time as there are cores).
            Thread {
                defer { group.leave() }
                for batch in 0..<batchesPerClient {
                    var operations = keys.enumerated().map { index, key in
                        index % 2 == 0
                            ? BatchTests.Operation(method: "MERGE", uri: "Person(\(key))", body: #"{"lastName":"Client\#(client)"}"#)
                            : BatchTests.Operation(method: "PUT", uri: "Person(\(key))/lastName", body: #"{"lastName":"Client\#(client)"}"#)
                    }
                    operations.append(BatchTests.Operation(method: "POST", uri: "Car",
                                                           body: #"{"make":"Saab","model":"C\#(client)-\#(batch)","createStamp":\#(stamp)}"#))
                    statuses.sendChangeSet(operations, port: port)
                }
            }.start()
        }
        #expect(group.wait(timeout: .now() + 120) == .success, "the change sets did not finish within 2 minutes")
        let answered = statuses.sorted
        #expect(answered.filter { $0 == 202 }.count == clients * batchesPerClient, "\(answered)")
        #expect(answered.filter { $0 == 204 }.count == clients * batchesPerClient * rows, "\(answered)")
        #expect(answered.filter { $0 == 201 }.count == clients * batchesPerClient, "\(answered)")
        #expect(answered.allSatisfy { $0 == 201 || $0 == 202 || $0 == 204 }, "\(answered)")
        #expect(try Int(first.get("Car/$count").text) == carsBefore + clients * batchesPerClient)
        for client in 0..<clients {
            let models = try second.get(TestGateway.encodeQuery("Car/$count?$filter=startswith(model,'C\(client)-')")).text
            #expect(models == String(batchesPerClient), "client \(client)")
        }
        for key in 1...rows {
            let name = try (second.get("Person(\(key))").d() as? [String: Any])?["lastName"] as? String
            #expect(name?.hasPrefix("Client") == true)
        }
        // A deadlock retried in time is invisible in the answers; the server counts it. Its
        // backends report their counts when they end, with the gateways.
        _ = first.stop()
        _ = second.stop()
        stopped = true
        let observer = try PostgresConnection(url: PostgresTestDatabase.url(PostgresTestDatabase.serverURL!, database: "postgres"))
        var deadlocks: [[SQLValue]] = []
        for _ in 0..<10 {
            usleep(200_000)
            deadlocks = try observer.rows("SELECT deadlocks FROM pg_stat_database WHERE datname = $1", [.text(database.name)])
            try observer.execute("SELECT pg_stat_clear_snapshot()")
            if (try observer.rows("SELECT count(*) FROM pg_stat_activity WHERE datname = $1", [.text(database.name)])) == [[.integer(0)]] {
                break
            }
        }
        deadlocks = try observer.rows("SELECT deadlocks FROM pg_stat_database WHERE datname = $1", [.text(database.name)])
        #expect(deadlocks == [[.integer(0)]], "the server detected deadlocks")
    }

    /// A change set that needs a row another writer keeps changing, in short transactions one
    /// after another: it waits for the row's lock and commits. (At REPEATABLE READ each of its
    /// attempts found the row changed since its snapshot, and it ran out of retries: 503.)
    @Test func aChangeSetOverARowAnotherWriterKeepsChangingCommits() throws {
        let database = try PostgresTestDatabase()
        let (first, second) = try Self.gateways(database)
        defer { _ = first.stop(); _ = second.stop() }
        let locker = PostgresConnectionTests.HandedOver(try database.connect())
        let stop = Statuses()
        let lockerDone = DispatchSemaphore(value: 0)
        DispatchQueue.global().async {
            // Bounded: at most 10 s, whatever the gateway does.
            let deadline = Date().addingTimeInterval(10)
            while stop.sorted.isEmpty && Date() < deadline {
                try? locker.connection.execute("BEGIN")
                _ = try? locker.connection.query(#"UPDATE "Person" SET "firstName" = 'Locker' WHERE "personID" = $1"#, [.integer(1)])
                usleep(30_000)
                try? locker.connection.execute("COMMIT")
                usleep(1_000)
            }
            lockerDone.signal()
        }
        defer {
            stop.append(1)
            lockerDone.wait()
        }
        usleep(100_000)
        for (index, gateway) in [first, second, first].enumerated() {
            // Person(2) first, so that the change set has read (taken its snapshot) before it waits.
            let body = BatchTests.body([[
                BatchTests.Operation(method: "MERGE", uri: "Person(2)", body: #"{"lastName":"Set\#(index)"}"#),
                BatchTests.Operation(method: "MERGE", uri: "Person(1)", body: #"{"lastName":"Set\#(index)"}"#),
            ]])
            let answer = try Self.send(gateway, "POST", "$batch", body: body, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
            #expect(answer.status == 202)
            let inner = answer.text.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.map { $0.dropFirst(9).prefix(3) }
            #expect(inner == ["204", "204"], "\(answer.text)")
            #expect(try (second.get("Person(1)").d() as? [String: Any])?["lastName"] as? String == "Set\(index)")
        }
    }
}
