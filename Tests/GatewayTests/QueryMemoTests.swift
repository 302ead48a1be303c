import EDM
import Foundation
@testable import ODataStore
@testable import SQLiteStore
import ODataURI
import Testing

/// The SQL of a request target's queries is built once and kept with its parse (`QueryMemo`):
/// repeats bind the same prepared statement, still read the data as it is now, and a query of
/// another shape for the same target gets SQL of its own.
@Suite struct QueryMemoTests {
    let gateway: TestGateway

    init() throws { gateway = try TestGateway() }

    /// The query of a collection target, cut at `pageSize`, and the target's `$expand`.
    private func query(_ target: String, pageSize: Int? = 2) throws -> (EntityQuery, expand: [ExpandNode]) {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let info = try UriParser(model: gateway.model).parse(path: parts[0], query: parts.count > 1 ? parts[1] : "")
        guard case .entityCollection(let path) = info.resource else { throw URIError.badRequest("not a collection: \(target)") }
        return (EntityQuery(path: path, options: info.options, pageSize: pageSize), info.options.expand)
    }

    private func lastNames(_ reader: EntityReader, _ query: EntityQuery, memo: QueryMemo) throws -> [String] {
        var names: [String] = []
        _ = try reader.forEachRow(query, memo: memo) { row in
            if case .string(let name) = row.record.value(of: query.path.targetType.property(named: "lastName")!) { names.append(name) }
        }
        return names
    }

    @Test func aRepeatReusesTheSQLAndTheStatementAndReadsCurrentData() throws {
        let database = try gateway.openDatabase()
        let reader = EntityReader(connection: database)
        let memo = QueryMemo()
        let (people, _) = try query("Person?$filter=startswith(lastName,'S') eq true&$orderby=firstName&$top=5&$inlinecount=allpages")
        let first = try lastNames(reader, people, memo: memo)
        let built = try #require(memo.page?.built)
        let statement = try database.statement(built.key)
        let count = try reader.count(people, applyTopSkip: false, memo: memo)
        #expect(first == (try lastNames(reader, people, memo: QueryMemo())), "the memo changes nothing read")

        try database.execute("INSERT INTO Person (firstName, lastName, createDate) VALUES ('Aaron', 'Sanders', 0)")
        let second = try lastNames(reader, people, memo: memo)
        #expect(memo.page?.built === built, "built once")
        #expect(try database.statement(built.key) === statement, "prepared once, kept by the connection")
        #expect(second.first == "Sanders", "ordered by first name, Aaron comes first: \(second)")
        #expect(try reader.count(people, applyTopSkip: false, memo: memo) == count + 1)
    }

    /// Joined expansions are the processor's choice per request (JSON joins, Atom does not),
    /// so one target can ask for two shapes of SQL: each gets its own.
    @Test func aQueryOfAnotherShapeGetsItsOwnSQL() throws {
        let reader = EntityReader(connection: try gateway.openDatabase())
        let memo = QueryMemo()
        var (services, expand) = try query("PersonCarMaintenance?$top=3&$expand=Maintenance", pageSize: nil)
        let plain = try reader.page(services, memo: memo).entities.records().map(\.values)
        let plainSQL = try #require(memo.page?.built.key.sql)
        services.joinedExpand = expand
        var joinedEntities = 0
        _ = try reader.forEachRow(services, memo: memo) { row in
            if case .single(let maintenance?) = row.children(for: row.type.navigationProperty(named: "Maintenance")!) {
                #expect(maintenance.type.name == "Maintenance")
                joinedEntities += 1
            }
        }
        #expect(joinedEntities == 3)
        #expect(memo.page?.built.key.sql != plainSQL)
        services.joinedExpand = []
        #expect(try reader.page(services, memo: memo).entities.records().map(\.values) == plain)
    }

    /// One plan serves readers on different connections (a memo kept with a parse may meet
    /// another connection): each connection prepares its own statement for the plan's SQL.
    @Test func onePlanServesEveryConnection() throws {
        let (first, second) = (try gateway.openDatabase(), try gateway.openDatabase())
        let memo = QueryMemo()
        let read = try keys(EntityReader(connection: first), "Person?$orderby=lastName&$top=3", memo: memo)
        #expect(read.keys.count == 3)
        let again = try keys(EntityReader(connection: second), "Person?$orderby=lastName&$top=3", memo: memo)
        #expect(again.keys == read.keys && again.count == read.count)
        let built = try #require(memo.page?.built)
        #expect(try first.statement(built.key) !== second.statement(built.key), "each connection prepared its own")
    }

    /// The plan holds SQL text, not statements: after the connection's bounded cache let its
    /// statement go, the plan's statement is prepared again and answers the same.
    @Test func aPlanOutlivesTheConnectionsStatementCache() throws {
        let database = try gateway.openDatabase()
        let reader = EntityReader(connection: database)
        let memo = QueryMemo()
        let (people, _) = try query("Person?$orderby=lastName&$top=3")
        let first = try lastNames(reader, people, memo: memo)
        let built = try #require(memo.page?.built)
        let statement = try database.statement(built.key)
        for n in 0..<300 { _ = try database.cachedStatement("SELECT \(n)").rows() }
        #expect(try database.statement(built.key) !== statement, "the connection's statement cache started over")
        #expect(try lastNames(reader, people, memo: memo) == first)
        #expect(memo.page?.built === built, "the plan is kept")
    }

    /// The keys of the entities `target` addresses, read with `memo`, and their count.
    private func keys(_ reader: EntityReader, _ target: String, memo: QueryMemo) throws -> (keys: [Int64], count: Int) {
        let (query, _) = try query(target, pageSize: nil)
        var keys: [Int64] = []
        _ = try reader.forEachRow(query, memo: memo) { row in
            if case .integer(let key) = row.record.values[0] { keys.append(key) }
        }
        return (keys, try reader.count(query, applyTopSkip: false, memo: memo))
    }

    /// Targets that differ only in their keys share a memo (`ParseCache` gives them one): the
    /// SQL built for the first binds the keys of each, in the path's last segment or deeper.
    @Test func targetsOfOneShapeBindTheirOwnKeys() throws {
        let reader = EntityReader(connection: try gateway.openDatabase())
        for (first, second) in [("Person(1)/PersonCar", "Person(2)/PersonCar"),
                                ("PersonCar(1)/Car/PersonCar", "PersonCar(4)/Car/PersonCar")] {
            let memo = QueryMemo()
            let firstRead = try keys(reader, first, memo: memo)
            let built = try #require(memo.page?.built)
            let secondRead = try keys(reader, second, memo: memo)
            #expect(memo.page?.built === built, "built once for both")
            #expect(firstRead == (try keys(reader, first, memo: QueryMemo())))
            #expect(secondRead == (try keys(reader, second, memo: QueryMemo())), "\(second) reads its own rows")
            #expect(secondRead.keys != firstRead.keys)
        }
        let memo = QueryMemo()
        _ = try keys(reader, "Person(1)/PersonCar", memo: memo)
        let expected = try personCars(of: 2)
        #expect(try keys(reader, "Person(2)/PersonCar", memo: memo) == (expected, expected.count))
    }

    /// The PersonCar keys of a person, straight from SQLite.
    private func personCars(of person: Int) throws -> [Int64] {
        try gateway.openDatabase().rows("SELECT personCarID FROM PersonCar WHERE personID = \(person) ORDER BY personCarID").compactMap {
            if case .integer(let key) = $0[0] { return key }
            return nil
        }
    }

    /// Over HTTP, where one thread's parse cache hands the targets one memo.
    @Test func targetsOfOneShapeOverHTTP() throws {
        for person in [1, 2, 1, 4] {
            let expected = try personCars(of: person).map(Int.init)
            #expect(!expected.isEmpty)
            let response = try gateway.get("Person(\(person))/PersonCar?$inlinecount=allpages")
            #expect(response.status == 200)
            let d = try #require(try response.d() as? [String: Any])
            let ids = (d["results"] as? [[String: Any]] ?? []).compactMap { $0["personCarID"] as? Int }
            #expect(ids == expected, "Person(\(person))")
            #expect(d["__count"] as? String == String(expected.count), "Person(\(person))")
        }
        let bad = try gateway.get("Person('x')/PersonCar")
        #expect(bad.status == 400)
        #expect(bad.text.contains("invalid key in 'Person('x')'"), "the parser's own message: \(bad.text)")
    }

    /// The keys of the cars of `Person(key)`'s PersonCar rows, read as a response writes them:
    /// each PersonCar lent from its row, with its Car joined.
    private func streamedCars(_ reader: EntityReader, person key: Int, memo: QueryMemo?) throws -> [Int64] {
        let info = try UriParser(model: gateway.model).parse(path: "Person(\(key))", query: "$expand=PersonCar,PersonCar/Car")
        guard case .entity(let path) = info.resource else { throw URIError.badRequest("not an entity") }
        let personCar = try #require(gateway.model.entitySet(named: "Person")?.entityType.navigationProperty(named: "PersonCar"))
        let car = try #require(gateway.model.entitySet(named: "PersonCar")?.entityType.navigationProperty(named: "Car"))
        var cars: [Int64] = []
        try reader.withSingle(path, streaming: info.options.expand, memo: memo) { person in
            guard case .lent(let lent)? = person.children(for: personCar) else { return }
            try lent.forEach { row in
                if case .single(let joined?)? = row.children(for: car), case .integer(let id) = joined.value(at: 0) { cars.append(id) }
            }
        }
        return cars
    }

    /// A single entity's streamed expansions keep their plan (link, joins, statement) in the
    /// memo: a repeat neither lays out the joins nor looks the statement up, still reads the
    /// data as it is now, and another connection gets a statement of its own.
    @Test func streamedExpansionsKeepTheirPlan() throws {
        let database = try gateway.openDatabase()
        let reader = EntityReader(connection: database)
        let memo = QueryMemo()
        let first = try streamedCars(reader, person: 1, memo: memo)
        #expect(first == (try streamedCars(reader, person: 1, memo: nil)), "the memo changes nothing read")
        #expect(!first.isEmpty)
        let plan = try #require(memo.expansionSteps.first)
        #expect(memo.expansionSteps.count == 1, "one plan per expanded collection")
        let statement = try plan.statement(reader, single: true)

        try database.execute("INSERT INTO PersonCar (personID, carID, createStamp) VALUES (1, 3, 0)")
        let second = try streamedCars(reader, person: 1, memo: memo)
        #expect(Set(second) == Set(first + [3]), "the repeat reads the row inserted since: \(second)")
        #expect(memo.expansionSteps.count == 1 && memo.expansionSteps.first === plan, "planned once")
        #expect(try plan.statement(reader, single: true) === statement, "prepared once")

        let other = EntityReader(connection: try gateway.openDatabase())
        #expect(try streamedCars(other, person: 1, memo: memo) == second)
        #expect(try plan.statement(other, single: true) !== statement, "a statement is never used on another connection")
    }

    /// A page's `$expand` levels read by key list are steps of the target's read plan too:
    /// one per level, kept for the repeat, which reads the data as it is now.
    @Test func keyListLevelsAreStepsOfThePlan() throws {
        let database = try gateway.openDatabase()
        let reader = EntityReader(connection: database)
        let info = try UriParser(model: gateway.model).parse(path: "Person", query: "$top=3&$expand=PersonCar/PersonCarMaintenance,PersonCar/Car")
        guard case .entityCollection(let path) = info.resource else { throw URIError.badRequest("not a collection") }
        let memo = QueryMemo()
        func read() throws -> EntityCursor {
            let page = try reader.page(EntityQuery(path: path, options: info.options, pageSize: nil), memo: memo)
            var budget = EntityBudget.unlimited
            try reader.expand(page.entities, info.options.expand, memo: memo, budget: &budget)
            return page.entities
        }
        let first = try read()
        // PersonCar's children hold a collection, so none is joined: one step per level, depth first.
        #expect(memo.expansionSteps.map(\.navigation.name) == ["PersonCar", "PersonCarMaintenance", "Car"])
        let steps = memo.expansionSteps
        let second = try read()
        #expect(zip(steps, memo.expansionSteps).allSatisfy { $0 === $1 } && memo.expansionSteps.count == 3, "planned once")
        let personCar = try #require(gateway.model.entitySet(named: "Person")?.entityType.navigationProperty(named: "PersonCar"))
        func count(_ people: EntityCursor) throws -> Int {
            var total = 0
            try people.forEach { person in
                if case .lent(let cars)? = person.children(for: personCar) { total += try cars.records().count }
            }
            return total
        }
        #expect(try count(first) == count(second) && count(first) > 0)
    }

    /// Over HTTP, the same target alternates JSON (joined) and Atom (a statement per level)
    /// and each answer stays whole.
    @Test func oneTargetServedInBothRepresentations() throws {
        let target = "PersonCarMaintenance?$top=3&$expand=Maintenance"
        let json = try gateway.get(target)
        let atom = try gateway.get(target, accept: "application/atom+xml")
        let again = try gateway.get(target)
        #expect(json.status == 200 && atom.status == 200 && again.status == 200)
        #expect(try json.d() as? NSDictionary == again.d() as? NSDictionary)
        let results = try #require(try json.d() as? [[String: Any]])
        #expect(results.count == 3 && results.allSatisfy { $0["Maintenance"] is [String: Any] })
        #expect(atom.text.components(separatedBy: "<m:inline>").count - 1 == 3, "each entry expands its maintenance item")
    }
}
