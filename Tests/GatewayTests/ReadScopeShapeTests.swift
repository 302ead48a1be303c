import Foundation
import ODataStore
import PostgresStore
import Testing

/// A read known to need one statement runs it without BEGIN and COMMIT on PostgreSQL (one
/// statement is its own snapshot), and a read that may need more keeps its snapshot
/// transaction. A scope declared single-statement that runs a second statement all the same
/// is run again in a transaction and counted: no request shape may do so.
@Suite(PostgresTestDatabase.enabled) struct ReadScopeShapeTests {
    /// Outside a transaction the session's isolation is the server's default, READ COMMITTED;
    /// inside a read scope's transaction it is REPEATABLE READ.
    static let isolation = "SELECT current_setting('transaction_isolation')"

    @Test func aSingleStatementScopeRunsWithoutATransaction() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let alone = try connection.readScope(.singleStatement) { try connection.rows(Self.isolation) }
        #expect(alone == [[.text("read committed")]], "no BEGIN was sent")
        #expect(!connection.isInTransaction)
        let several = try connection.readScope(.severalStatements) { try connection.rows(Self.isolation) }
        #expect(several == [[.text("repeatable read")]])
        #expect(connection.readScopeTally.singleStatementScopes == 1)
        #expect(connection.readScopeTally.overrunScopes == 0)
        // With no statement at all, nothing is sent and nothing is left open.
        try connection.readScope(.singleStatement) {}
        #expect(!connection.isInTransaction)
    }

    /// A misprediction never reads two snapshots: the second statement is refused before it is
    /// sent, and the scope runs again in one transaction, even when its body swallowed the refusal.
    @Test func aSecondStatementRunsTheScopeAgainInOneSnapshot() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let other = try database.connect()
        try other.execute("CREATE TABLE item (id BIGINT PRIMARY KEY)")
        var runs = 0
        let (first, second) = try connection.readScope(.singleStatement) {
            runs += 1
            let first = try connection.rows("SELECT count(*) FROM item")
            _ = try other.query("INSERT INTO item VALUES ($1)", [.integer(Int64(runs))])
            return (first, try connection.rows("SELECT count(*) FROM item"))
        }
        #expect(runs == 2)
        #expect(first == second, "both counts come from one snapshot: \(first) and \(second)")
        #expect(connection.readScopeTally.overrunScopes == 1)
        #expect(connection.readScopeTally.lastOverrunSQL == "SELECT count(*) FROM item")
        #expect(!connection.isInTransaction)

        runs = 0
        let isolations = try connection.readScope(.singleStatement) {
            runs += 1
            let first = try connection.rows(Self.isolation)
            let second = try? connection.rows(Self.isolation)
            return [first, second ?? []]
        }
        #expect(runs == 2)
        #expect(isolations == [[[.text("repeatable read")]], [[.text("repeatable read")]]])
        #expect(connection.readScopeTally.overrunScopes == 2)
        #expect(!connection.isInTransaction)
    }

    /// One request shape and whether its read is known to need one statement.
    struct Shape: CustomStringConvertible {
        var target: String
        var accept = "application/json"
        var status = 200
        var single: Bool
        var description: String { "\(target) (\(accept))" }
    }

    static let shapes: [Shape] = [
        Shape(target: "", single: true),
        Shape(target: "$metadata", accept: "application/xml", single: true),
        Shape(target: "Person(1)", single: true),
        Shape(target: "Person(999)", status: 404, single: true),
        Shape(target: "Person(1)?$select=firstName,lastName", single: true),
        Shape(target: "Person(1)", accept: "application/atom+xml", single: true),
        Shape(target: "Person(1)", accept: "text/html", single: true),
        Shape(target: "Person?$top=20", single: true),
        Shape(target: "Person?$top=5&$skip=3&$orderby=lastName desc,firstName", single: true),
        Shape(target: "Person?$filter=lastName eq 'Samson' and personID gt 1&$select=firstName", single: true),
        Shape(target: "Person?$filter=startswith(lastName,'S')&$orderby=createDate", accept: "application/atom+xml", single: true),
        Shape(target: "Person?$top=3", accept: "text/html", single: true),
        Shape(target: "Person", single: true),
        Shape(target: "PersonCar?$expand=Car,Person&$top=5", single: true),
        Shape(target: "PersonCar(1)?$expand=Car", single: true),
        Shape(target: "PersonCar(1)?$expand=Car", accept: "application/atom+xml", single: true),
        Shape(target: "PersonCarMaintenance?$expand=PersonCar/Car&$filter=cost gt 100M", single: true),
        Shape(target: "PersonCar(1)/Car", single: true),
        Shape(target: "PersonCar(999)/Car", status: 404, single: true),
        Shape(target: "Person(1)/PersonCar(1)", single: true),
        Shape(target: "PersonCar(1)/Car/make", single: true),
        Shape(target: "PersonCar(1)/Car/make/$value", accept: "*/*", single: true),
        Shape(target: "Person(1)/firstName/$value", accept: "*/*", single: true),
        Shape(target: "Person/$count", accept: "*/*", single: true),
        Shape(target: "Person/$count?$filter=lastName eq 'Samson'", accept: "*/*", single: true),
        Shape(target: "CarsDueForService?miles=100000&$top=3", single: true),
        Shape(target: "CarsDueForService?miles=100000&$top=3", accept: "application/atom+xml", single: true),
        Shape(target: "TotalMaintenanceCost?personID=1", single: true),
        Shape(target: "Person?$top=3&$inlinecount=allpages", single: false),
        Shape(target: "CarsDueForService?miles=100000&$inlinecount=allpages", single: false),
        Shape(target: "Person?$expand=PersonCar&$top=3", single: false),
        Shape(target: "Person(1)?$expand=PersonCar,PersonCar/Car", single: false),
        Shape(target: "Person(1)?$expand=PersonCar", accept: "application/atom+xml", single: false),
        Shape(target: "Person(1)?$expand=PersonCar/PersonCarMaintenance/Maintenance", single: false),
        Shape(target: "Car?$expand=PersonCar/Person&$top=4", single: false),
        Shape(target: "Car(1)?$expand=PersonCar", single: false),
        Shape(target: "Person(1)/PersonCar", single: false),
        Shape(target: "Person(1)/PersonCar?$filter=personCarID eq -1", single: false),
        Shape(target: "Person(999)/PersonCar", status: 404, single: false),
        Shape(target: "Person(1)/PersonCar", accept: "text/html", single: false),
        Shape(target: "Person(1)/PersonCar/$count", accept: "*/*", single: false),
        Shape(target: "Person(999)/PersonCar/$count", accept: "*/*", status: 404, single: false),
        Shape(target: "Person(1)/$links/PersonCar", single: false),
        Shape(target: "PersonCar(1)/$links/Car", single: false),
        Shape(target: "PersonCar(1)/$links/Car", accept: "application/xml", single: false),
        Shape(target: "Person(1)/PersonCar?$inlinecount=allpages", single: false),
    ]

    /// Every shape on a gateway on PostgreSQL: the single-statement ones are read without a
    /// transaction, and none runs a second statement in such a scope. The pages reached by
    /// `$skiptoken` (the server page size is 25) and a `$batch`'s queries too.
    @Test func noRequestShapeRunsASecondStatementInASingleStatementScope() throws {
        let gateway = try TestGateway(engine: .postgresql) { $0.defaultPageSize = 25 }
        let tally = try #require(gateway.postgresStore?.readScopeTally)
        func check(_ shape: Shape) throws {
            let (single, overrun) = (tally.singleStatementScopes, tally.overrunScopes)
            let response = try gateway.get(TestGateway.encodeQuery(shape.target), accept: shape.accept)
            #expect(response.status == shape.status, "\(shape): \(response.text.prefix(300))")
            #expect(tally.overrunScopes == overrun, "\(shape) ran a second statement: \(tally.lastOverrunSQL ?? "")")
            #expect(tally.singleStatementScopes - single == (shape.single ? 1 : 0), "\(shape)")
        }
        for shape in Self.shapes { try check(shape) }

        // The pages after the first, by the next links of a set and of a filtered, ordered set.
        for first in ["Person", "Person?$orderby=lastName desc&$select=lastName", "PersonCar?$expand=Car"] {
            var target: String? = first
            var pages = 0
            while let current = target, pages < 5 {
                let relative = current.hasPrefix(gateway.root) ? String(current.dropFirst(gateway.root.count)) : TestGateway.encodeQuery(current)
                let (single, overrun) = (tally.singleStatementScopes, tally.overrunScopes)
                let response = try gateway.get(relative)
                #expect(response.status == 200, "\(relative): \(response.text.prefix(300))")
                #expect(tally.overrunScopes == overrun && tally.singleStatementScopes == single + 1, "\(relative)")
                target = (try response.d() as? [String: Any])?["__next"] as? String
                pages += 1
            }
            #expect(pages > 1, "\(first) has a next page")
        }

        // A $batch's queries, each read in a scope of its own.
        let (single, overrun) = (tally.singleStatementScopes, tally.overrunScopes)
        let batch = BatchTests.body([BatchTests.Operation(method: "GET", uri: "Person(2)"),
                                     BatchTests.Operation(method: "GET", uri: "Person(1)/PersonCar"),
                                     BatchTests.Operation(method: "GET", uri: "Person?$top=2&$select=lastName")])
        let answer = try gateway.request("POST", "$batch", headers: ["Content-Type": "multipart/mixed; boundary=batch_test"],
                                         body: Array(batch.utf8))
        #expect(answer.status == 202)
        #expect(answer.text.components(separatedBy: "HTTP/1.1 200").count - 1 == 3, "\(answer.text.prefix(600))")
        #expect(tally.overrunScopes == overrun && tally.singleStatementScopes == single + 2)
        #expect(tally.overrunScopes == 0, "last: \(tally.lastOverrunSQL ?? "")")
    }

    /// A read of several statements whose later statements take only the request's own values
    /// (one entity's expansion takes its key, a page's count its filter's values) sends them in
    /// the round trip of its first once a read of its target has run on that worker: every shape
    /// answers as it did the first time. Three rounds, so that each shape is read again on the
    /// worker that learned it, however the shapes fall to the two workers.
    @Test func laterStatementsSentAheadAnswerAsTheyWouldHave() throws {
        let gateway = try TestGateway(engine: .postgresql)
        let tally = try #require(gateway.postgresStore?.readScopeTally)
        var firstAnswers: [String: String] = [:]
        for round in 0..<3 {
            for shape in Self.shapes where !shape.single {
                let response = try gateway.get(TestGateway.encodeQuery(shape.target), accept: shape.accept)
                #expect(response.status == shape.status, "\(shape): \(response.text.prefix(300))")
                // Atom's <updated> is the time of the answer, which a slow round moves past a second.
                let answer = response.text.replacingOccurrences(of: "<updated>[^<]*</updated>", with: "<updated></updated>",
                                                                options: .regularExpression)
                if round == 0 {
                    firstAnswers[shape.description] = answer
                } else {
                    #expect(answer == firstAnswers[shape.description], "\(shape) answers as the first time")
                }
            }
        }
        #expect(tally.prefetchedStatements > 0 && tally.overrunScopes == 0)
    }

    /// The blog's expansion of one person, read once to learn its plan: then every person's
    /// expansion is sent in the round trip of the first statement, each with its own key, while
    /// another plan that begins with the same statement (the person's cars) is read between.
    /// A filtered page's count is sent ahead from the second read of its target on.
    @Test func otherKeysAndFilterValuesAreSentAheadWithTheirOwnValues() throws {
        let gateway = try TestGateway(engine: .postgresql)
        let tally = try #require(gateway.postgresStore?.readScopeTally)
        // Each of the gateway's two workers learns on its own connection: two reads, one each
        // (connections are dealt to the workers in turn).
        let expansion = "?$expand=PersonCar,PersonCar/Car"
        for _ in 0..<2 { _ = try gateway.get(TestGateway.encodeQuery("Person(1)" + expansion)) }
        for person in 1...4 {
            let before = tally.prefetchedStatements
            let response = try gateway.get(TestGateway.encodeQuery("Person(\(person))" + expansion))
            #expect(tally.prefetchedStatements == before + 1, "Person(\(person))'s cars were sent ahead")
            let cars = try #require((try response.d() as? [String: Any])?["PersonCar"] as? [[String: Any]], "\(response.text.prefix(300))")
            let listed = try #require((try gateway.get(TestGateway.encodeQuery("Person(\(person))/PersonCar?$select=personCarID")).d()
                as? [String: Any])?["results"] as? [[String: Any]])
            #expect(!cars.isEmpty && cars.map { $0["personCarID"] as? Int } == listed.map { $0["personCarID"] as? Int },
                    "Person(\(person))'s cars")
            #expect(cars.allSatisfy { $0["Car"] is [String: Any] })
        }
        // A filter value is a target of its own (only keys share a plan): its first read on each
        // worker learns.
        for lastName in ["Samson", "Gonzalez", "O''Brien", "Nobody"] {
            let filter = "$filter=lastName eq '\(lastName)'"
            let target = TestGateway.encodeQuery("Person?\(filter)&$orderby=firstName&$top=1&$inlinecount=allpages")
            let counted = try gateway.get(TestGateway.encodeQuery("Person/$count?\(filter)"), accept: "*/*")
            let expected = try #require(Int(counted.text))
            for read in 0..<3 {
                let before = tally.prefetchedStatements
                let page = try #require(try gateway.get(target).d() as? [String: Any])
                #expect(Int(page["__count"] as? String ?? "") == expected, "\(lastName)")
                #expect(tally.prefetchedStatements == before + (read == 2 ? 1 : 0), "\(lastName)'s count was sent ahead the third time")
            }
        }
        #expect(tally.overrunScopes == 0 && tally.earlyCommitOverruns == 0)
    }
}
