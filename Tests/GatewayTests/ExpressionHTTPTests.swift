import EDM
import Foundation
import ODataStore
import SQLiteStore
import ODataURI
import Testing

/// `$filter` and `$orderby` through the real gateway over HTTP: the table of every operator,
/// function and literal on the all-types set, errors with their positions, and random filters
/// and orderings on the seed data (also walked page by page through `__next`), on either
/// engine, checked against the reference evaluator reading the rows the gateway was seeded with.
@Suite(.serialized) struct ExpressionHTTPTests {
    /// The all-types schema behind a gateway, with the fixture rows.
    static func allTypesGateway() throws -> TestGateway {
        let schema = try ExpressionFixture.allTypesSchemaFile()
        defer { try? FileManager.default.removeItem(at: schema) }
        let gateway = try TestGateway(schema: schema, seed: nil)
        try ExpressionFixture.insertAllTypesRows(into: try gateway.openDatabase(), model: gateway.model)
        return gateway
    }

    /// The entities of a response (`d` as a V1 array or a V2 `results`), and its `__next` link.
    static func page(_ response: RawHTTPResponse) throws -> (entities: [[String: Any]], next: String?) {
        let d = try response.d()
        if let array = d as? [[String: Any]] { return (array, nil) }
        guard let object = d as? [String: Any], let results = object["results"] as? [[String: Any]] else {
            throw TestFailure("no results in \(response.text.prefix(300))")
        }
        return (results, object["__next"] as? String)
    }

    static func keys(_ entities: [[String: Any]], _ keyName: String) -> [[SQLValue]] {
        entities.map { [.integer(Int64($0[keyName] as! Int))] }
    }

    /// The reference evaluator over the rows the gateway was seeded with: its own SQLite file,
    /// or for a PostgreSQL gateway a SQLite file seeded from the same folder.
    static func reference(for gateway: TestGateway) throws -> ReferenceEvaluator {
        let database = gateway.engine == .sqlite ? try gateway.openDatabase() : try ExpressionFixture.carDealerDatabase()
        return try ReferenceEvaluator(model: gateway.model, database: database)
    }

    /// A filter whose answer PostgreSQL is known to give otherwise than SQLite and the reference
    /// (`ExpressionDifferentialTests.divergesAcrossEngines`), or to refuse
    /// (`mayOverflowADouble`) where they compute an infinity: no comparison on PostgreSQL.
    static func isKnownDivergence(_ expression: BoundExpression, on engine: TestGateway.Engine, answered status: Int) -> Bool {
        guard engine == .postgresql else { return false }
        return ExpressionDifferentialTests.divergesAcrossEngines(expression)
            || (status != 200 && ExpressionDifferentialTests.mayOverflowADouble(expression))
    }

    @Test func everyFilterOfTheTableOverHTTP() throws {
        let gateway = try Self.allTypesGateway()
        for (filter, ids) in ExpressionSQLTests.filters {
            let response = try gateway.get("Samples?$filter=" + TestGateway.percentEncoded(filter))
            #expect(response.status == 200, "\(filter): \(response.text.prefix(300))")
            guard response.status == 200 else { continue }
            let got = try Self.page(response).entities.map { $0["id"] as! Int }.sorted()
            #expect(got == ids, "\(filter)")
        }
        for (orderBy, ids) in ExpressionSQLTests.orderings {
            let response = try gateway.get("Samples?$orderby=" + TestGateway.percentEncoded(orderBy))
            #expect(response.status == 200, "\(orderBy): \(response.text.prefix(300))")
            guard response.status == 200 else { continue }
            #expect(try Self.page(response).entities.map { $0["id"] as! Int } == ids, "\(orderBy)")
        }
    }

    @Test(arguments: [
        ("Person?$filter=firstName gt 5", 400, "Type error in $filter at position 10: 'gt' cannot compare Edm.String with Edm.Int32"),
        ("Person?$filter=bogus eq 1", 400, "Unknown name in $filter at position 0"),
        ("Person?$filter=firstName eq 'Bob' and", 400, "Syntax error in $filter at position 22"),
        ("Person?$filter=startswith(firstName)", 400, "startswith takes 2 arguments"),
        ("Person?$filter=createDate eq datetime'2009-02-30T00:00'", 400, "Invalid literal in $filter at position 14"),
        ("Person?$filter=PersonCar/createStamp eq null", 400, "leads to many"),
        ("Person?$filter=cast('edmexampleModel.Person')", 501, "cast to the entity type"),
        ("Person?$orderby=firstName asc desc", 400, "Syntax error in $orderby at position 14"),
        ("Person?$orderby=PersonCar", 400, "in $orderby at position 0"),
        ("Person?$filter=", 400, "$filter is empty"),
    ] as [(String, Int, String)])
    func errorsOverHTTPNameProblemAndPosition(_ target: String, _ status: Int, _ fragment: String) throws {
        let gateway = try TestGateway()
        let response = try gateway.get(TestGateway.encodeQuery(target))
        #expect(response.status == status, "\(target): \(response.text.prefix(300))")
        #expect(try response.errorMessage().contains(fragment), "\(target): \(response.text.prefix(300))")
    }

    @Test func filterNodeBoundIsNamedOverHTTP() throws {
        let gateway = try TestGateway { $0.limits.expression = ExpressionLimits(maxNodes: 5) }
        let response = try gateway.get(TestGateway.encodeQuery("Person?$filter=personID eq 1 or personID eq 2"))
        #expect(response.status == 400)
        #expect(try response.errorMessage().contains("maxNodes"))
    }

    @Test func anInListOfTwoHundredValuesAsPyODataWritesItPasses() throws {
        let gateway = try TestGateway()
        // pyodata's filter(personID__in=[...]): `personID eq 1 or personID eq 2 or ...`.
        let values = Array(stride(from: 1, through: 399, by: 2))
        #expect(values.count == 200)
        let filter = values.map { "personID eq \($0)" }.joined(separator: " or ")
        let response = try gateway.get("Person?$select=personID&$filter=" + TestGateway.percentEncoded(filter))
        #expect(response.status == 200, "\(response.text.prefix(300))")
        let got = try Self.page(response).entities.map { $0["personID"] as! Int }
        let odd = try gateway.get(TestGateway.encodeQuery("Person?$select=personID&$filter=personID mod 2 eq 1"))
        let expected = try Self.page(odd).entities.map { $0["personID"] as! Int }
        #expect(!got.isEmpty)
        #expect(got.sorted() == expected.sorted())
    }

    /// Each level of nesting may cost SQLite's parser several levels of its fixed stack: the
    /// deepest expressions the default bound lets through, of the shapes that nest most in SQL,
    /// must run, and deeper ones be refused with a 400 naming the bound, never fail in the engine.
    /// On an engine whose SQL for a node names its operand more than once, each level would
    /// double the statement: these shapes must still run at once.
    @Test(.timeLimit(.minutes(1)), arguments: TestGateway.engines)
    func expressionsAsDeepAsTheDepthBoundRunAndDeeperOnesAreRefused(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let bound = ExpressionLimits().maxDepth
        var nested = "personID"
        for _ in 0..<(bound / 3) { nested = "(" + nested + " mul 1 add 0)" }
        var negated = "personID"
        for _ in 0..<((bound - 1) / 2) { negated = "-(" + negated + ")" }
        var lowered = "firstName"
        for _ in 0..<(bound - 2) { lowered = "tolower(" + lowered + ")" }
        let negations = String(repeating: "not ", count: bound - 3) + "(personID gt 0)"
        var rounded = "(personID mul 1.5d)"
        for _ in 0..<(bound - 4) { rounded = "round(" + rounded + ")" }
        var divided = "(personID mul 1.5M)"
        for _ in 0..<(bound - 4) { divided = "(" + divided + " div 1.1M)" }
        var cut = "lastName"
        for _ in 0..<(bound - 5) { cut = "substring(" + cut + ", personID sub personID)" }
        let within = [
            "personID" + String(repeating: " add 1", count: bound - 1) + " gt 0",
            "personID" + String(repeating: " add 1L", count: bound - 1) + " gt 0",
            "personID" + String(repeating: " sub 1", count: bound - 2) + " ge personID sub 100",
            nested + " gt 0",
            negated + " ne 0",
            lowered + " ne 'x'",
            rounded + " gt 0",
            divided + " gt 0M",
            cut + " ne 'x'",
            "endswith(" + cut + ", 'n') or year(createDate) gt 2000",
            negations,
            "true eq (personID gt 0) eq true" + String(repeating: " eq true", count: bound - 4),
        ]
        for filter in within {
            let response = try gateway.get("Person?$select=personID&$filter=" + TestGateway.percentEncoded(filter))
            #expect(response.status == 200, "\(filter): \(response.text.prefix(300))")
        }
        for filter in ["personID" + String(repeating: " add 1", count: bound + 1) + " gt 0",
                       String(repeating: "-(", count: bound) + "personID" + String(repeating: ")", count: bound) + " gt 0"] {
            let refused = try gateway.get("Person?$select=personID&$filter=" + TestGateway.percentEncoded(filter))
            #expect(refused.status == 400, "\(filter): \(refused.text.prefix(300))")
            #expect(try refused.errorMessage().contains("--max-filter-depth"))
        }
    }

    @Test func theFilterBoundsAndTheTopMaximumAreSettable() throws {
        let gateway = try TestGateway {
            $0.limits.expression.maxNodes = 2000
            $0.limits.maxTop = 5
        }
        // 280 values, 1119 nodes: past the default bound, within the URI length.
        let filter = Array(repeating: "personID eq 1", count: 280).joined(separator: " or ")
        let big = try gateway.get("Person?$select=personID&$filter=" + TestGateway.percentEncoded(filter))
        #expect(big.status == 200, "\(big.text.prefix(300))")
        let top = try gateway.get("Person?$top=6")
        #expect(top.status == 400)
        #expect(try top.errorMessage().contains("maximum $top of 5"))
        #expect(try gateway.get("Person?$top=5").status == 200)
    }

    @Test(arguments: TestGateway.engines) func randomFiltersAndOrderingsOverHTTPAgreeWithTheReference(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine) { $0.defaultPageSize = 100_000 }
        let reference = try Self.reference(for: gateway)
        var failures = 0
        var skipped = 0
        for (index, set) in ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"].enumerated() {
            let type = gateway.model.entitySet(named: set)!.entityType
            let key = type.keyProperties[0].name
            var generator = ExpressionGenerator(type: type, model: gateway.model, reference: reference, seed: UInt64(500 + index))
            for _ in 0..<80 {
                let text = generator.boolean(depth: 3)
                let response = try gateway.get("\(set)?$select=\(key)&$filter=" + TestGateway.percentEncoded(text))
                let expression: BoundExpression
                switch Result(catching: { () throws(URIError) in try ExpressionParser.parseFilter(text, for: type, limits: ExpressionLimits(maxNodes: 1000)) }) {
                case .success(let parsed):
                    expression = parsed
                case .failure(let error):
                    guard ExpressionDifferentialTests.isConstantArithmeticError(error, text) else { throw error }
                    // Constants that divide by zero or overflow: the gateway refuses them too.
                    #expect(response.status == 400, "\(set)?$filter=\(text)")
                    #expect(try response.errorMessage().contains("Arithmetic error"), "\(set)?$filter=\(text)")
                    continue
                }
                if Self.isKnownDivergence(expression, on: engine, answered: response.status) {
                    skipped += 1
                    continue
                }
                let expected = reference.filter(expression, on: type)
                guard response.status == 200 else {
                    // The gateway's own node bound may refuse a large generated filter; anything else is a failure.
                    if !(try response.errorMessage().contains("maxNodes")) {
                        Issue.record("\(set)?$filter=\(text): \(response.status) \(response.text.prefix(300))")
                        failures += 1
                    }
                    continue
                }
                let got = Self.keys(try Self.page(response).entities, key).sorted(by: ReferenceEvaluator.keyOrder)
                if got != expected {
                    Issue.record("\(set)?$filter=\(text)\ngateway: \(got.count) rows, reference: \(expected.count) rows")
                    failures += 1
                }
            }
            for _ in 0..<30 {
                let text = generator.orderBy()
                let items: [OrderByItem]
                switch Result(catching: { () throws(URIError) in try ExpressionParser.parseOrderBy(text, for: type, limits: ExpressionLimits(maxNodes: 1000)) }) {
                case .success(let parsed):
                    items = parsed
                case .failure(let error):
                    guard ExpressionDifferentialTests.isConstantArithmeticError(error, text) else { throw error }
                    continue
                }
                let response = try gateway.get("\(set)?$select=\(key)&$orderby=" + TestGateway.percentEncoded(text))
                guard response.status == 200 else { continue }
                let got = Self.keys(try Self.page(response).entities, key)
                if got != reference.order(items, on: type) {
                    Issue.record("\(set)?$orderby=\(text): the gateway's order differs from the reference")
                    failures += 1
                }
            }
            if failures > 8 { return }
        }
        #expect(skipped < 20, "\(skipped) of 400 filters left out as known divergences")
    }

    @Test(arguments: TestGateway.engines) func pagesOfRandomOrderingsFollowTheReference(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine) { $0.defaultPageSize = 7 }
        let reference = try Self.reference(for: gateway)
        var failures = 0
        for (index, set) in ["Person", "Car", "Maintenance", "PersonCarMaintenance"].enumerated() {
            let type = gateway.model.entitySet(named: set)!.entityType
            let key = type.keyProperties[0].name
            var generator = ExpressionGenerator(type: type, model: gateway.model, reference: reference, seed: UInt64(700 + index))
            for round in 0..<12 {
                let orderBy = generator.orderBy()
                let filter = round % 3 == 0 ? nil : generator.boolean(depth: 2)
                let items = try ExpressionParser.parseOrderBy(orderBy, for: type, limits: ExpressionLimits(maxNodes: 1000))
                var expected = reference.order(items, on: type)
                var target = "\(set)?$select=\(key)&$orderby=" + TestGateway.percentEncoded(orderBy)
                if let filter {
                    let bound = try ExpressionParser.parseFilter(filter, for: type, limits: ExpressionLimits(maxNodes: 1000))
                    if Self.isKnownDivergence(bound, on: engine, answered: 200) { continue }
                    let selected = Set(reference.filter(bound, on: type))
                    expected = expected.filter(selected.contains)
                    target += "&$filter=" + TestGateway.percentEncoded(filter)
                }
                var got: [[SQLValue]] = []
                var next: String? = target
                var pages = 0
                while let current = next, pages < 200 {
                    let response = try gateway.get(current)
                    guard response.status == 200 else {
                        Issue.record("\(current): \(response.status) \(response.text.prefix(300))")
                        failures += 1
                        break
                    }
                    let page = try Self.page(response)
                    got += Self.keys(page.entities, key)
                    next = page.next.map { link in String(link[link.range(of: "/CarDealer.svc/")!.upperBound...]) }
                    pages += 1
                }
                if got != expected {
                    Issue.record("\(set)?$orderby=\(orderBy)&$filter=\(filter ?? "") in pages of 7: \(got.count) rows, reference \(expected.count)")
                    failures += 1
                }
            }
            if failures > 5 { return }
        }
    }
}
