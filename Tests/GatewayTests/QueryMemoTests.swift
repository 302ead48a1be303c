import EDM
import Foundation
@testable import ODataStore
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
        let reader = EntityReader(database: database)
        let memo = QueryMemo()
        let (people, _) = try query("Person?$filter=startswith(lastName,'S') eq true&$orderby=firstName&$top=5&$inlinecount=allpages")
        let first = try lastNames(reader, people, memo: memo)
        let built = try #require(memo.page?.built)
        let statement = try #require(built.statement)
        let count = try reader.count(people, applyTopSkip: false, memo: memo)
        #expect(first == (try lastNames(reader, people, memo: QueryMemo())), "the memo changes nothing read")

        try database.execute("INSERT INTO Person (firstName, lastName, createDate) VALUES ('Aaron', 'Sanders', 0)")
        let second = try lastNames(reader, people, memo: memo)
        #expect(memo.page?.built === built, "built once")
        #expect(memo.page?.built.statement === statement, "prepared once")
        #expect(second.first == "Sanders", "ordered by first name, Aaron comes first: \(second)")
        #expect(try reader.count(people, applyTopSkip: false, memo: memo) == count + 1)
    }

    /// Joined expansions are the processor's choice per request (JSON joins, Atom does not),
    /// so one target can ask for two shapes of SQL: each gets its own.
    @Test func aQueryOfAnotherShapeGetsItsOwnSQL() throws {
        let reader = EntityReader(database: try gateway.openDatabase())
        let memo = QueryMemo()
        var (services, expand) = try query("PersonCarMaintenance?$top=3&$expand=Maintenance", pageSize: nil)
        let plain = try reader.page(services, memo: memo).records.map(\.values)
        let plainSQL = try #require(memo.page?.built.sql)
        services.joinedExpand = expand
        var joinedEntities = 0
        _ = try reader.forEachRow(services, memo: memo) { row in
            if case .single(let maintenance?) = row.expansion(of: row.type.navigationProperty(named: "Maintenance")!) {
                #expect(maintenance.type.name == "Maintenance")
                joinedEntities += 1
            }
        }
        #expect(joinedEntities == 3)
        #expect(memo.page?.built.sql != plainSQL)
        services.joinedExpand = []
        #expect(try reader.page(services, memo: memo).records.map(\.values) == plain)
    }

    /// A statement the connection's cache let go stays the memo's, and keeps answering.
    @Test func aStatementTheConnectionDroppedStillServesTheMemo() throws {
        let database = try gateway.openDatabase()
        let reader = EntityReader(database: database)
        let memo = QueryMemo()
        let (people, _) = try query("Person?$orderby=lastName&$top=3")
        let first = try lastNames(reader, people, memo: memo)
        let statement = try #require(memo.page?.built.statement)
        for n in 0..<300 { _ = try database.cachedStatement("SELECT \(n)").rows() }
        #expect(try database.cachedStatement(statement.sql) !== statement, "the connection's statement cache started over")
        #expect(try lastNames(reader, people, memo: memo) == first)
        #expect(memo.page?.built.statement === statement)
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
