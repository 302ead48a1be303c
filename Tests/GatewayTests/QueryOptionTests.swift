import Foundation
import Testing

/// `$filter`, `$orderby`, `$select`, `$top`/`$skip` and `$inlinecount` together, over HTTP,
/// on sets and on navigation collections, combined with `$expand`.
@Suite struct QueryOptionTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    private func results(_ gateway: TestGateway, _ target: String) throws -> [[String: Any]] {
        let response = try gateway.get(target)
        #expect(response.status == 200, "\(target): \(response.text.prefix(300))")
        let d = try response.d()
        if let object = d as? [String: Any] { return object["results"] as! [[String: Any]] }
        return d as! [[String: Any]]
    }

    /// Percent-encodes the query values of `target` (everything after `?`), keeping its structure.
    private func escaped(_ target: String) -> String { TestGateway.encodeQuery(target) }

    @Test(arguments: TestGateway.engines) func filterOrderByAndInlineCountOnASet(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.get(escaped("Person?$filter=startswith(lastName,'S') and personID lt 50&$orderby=lastName desc,firstName&$top=3&$inlinecount=allpages"))
        #expect(response.status == 200)
        #expect(response.header("DataServiceVersion") == "2.0;")
        let d = try response.d() as! [String: Any]
        let people = d["results"] as! [[String: Any]]
        let all = try results(gateway, escaped("Person?$filter=startswith(lastName,'S') and personID lt 50"))
        #expect(d["__count"] as? String == String(all.count))
        let expected = all.sorted {
            let (l0, l1) = ($0["lastName"] as! String, $1["lastName"] as! String)
            return l0 != l1 ? l0 > l1 : ($0["firstName"] as! String) < ($1["firstName"] as! String)
        }.prefix(3).map { $0["personID"] as! Int }
        #expect(people.map { $0["personID"] as! Int } == Array(expected))
        #expect(people.allSatisfy { ($0["lastName"] as! String).hasPrefix("S") })
    }

    @Test(arguments: TestGateway.engines) func optionsApplyToNavigationCollections(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let all = try results(gateway, "Car(2)/PersonCar")
        let filtered = try results(gateway, escaped("Person(1)/PersonCar?$filter=Car/make eq 'Ford'&$orderby=personCarID desc"))
        #expect(filtered.map { $0["personCarID"] as! Int } == [2, 1])
        #expect(!all.isEmpty)
        #expect(try gateway.get(escaped("Person(1)/PersonCar/$count?$filter=Car/model eq 'Mustang'")).text == "1")
        #expect(try gateway.get(escaped("Person/$count?$filter=lastName eq 'Samson'")).text
                == String(try results(gateway, escaped("Person?$filter=lastName eq 'Samson'")).count))
    }

    @Test(arguments: TestGateway.engines) func filterThroughNavigationWithExpandAndSelect(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let records = try results(gateway, escaped("PersonCarMaintenance?$filter=PersonCar/Car/make eq 'Ford'&$top=50&$expand=Maintenance,PersonCar/Car&$select=cost,Maintenance/description,PersonCar/Car/make"))
        #expect(!records.isEmpty && records.count <= 50)
        for record in records {
            #expect(Set(record.keys) == ["__metadata", "cost", "Maintenance", "PersonCar"])
            #expect(Set((record["Maintenance"] as! [String: Any]).keys) == ["__metadata", "description"])
            let car = (record["PersonCar"] as! [String: Any])["Car"] as! [String: Any]
            #expect(car["make"] as? String == "Ford")
        }
    }

    @Test(arguments: TestGateway.engines) func selectStarAndNavigationLinks(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let people = try results(gateway, "Person?$top=1&$select=*,PersonCar")
        #expect(people[0]["firstName"] as? String == "Bob")
        #expect((people[0]["PersonCar"] as? [String: Any])?["__deferred"] != nil)
        let onlyLinks = try results(gateway, "Person?$top=1&$select=PersonCar")
        #expect(Set(onlyLinks[0].keys) == ["__metadata", "PersonCar"])
    }

    @Test(arguments: TestGateway.engines) func orderingIsStableAndPagesWithTheOrder(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let small = try TestGateway { $0.defaultPageSize = 7 }
        var seen: [Int] = []
        var target: String? = escaped("Person?$orderby=lastName,createDate desc")
        var pages = 0
        while let current = target {
            let d = try small.get(current).d()
            pages += 1
            if let object = d as? [String: Any] {
                seen += (object["results"] as! [[String: Any]]).map { $0["personID"] as! Int }
                target = (object["__next"] as? String).map { String($0.dropFirst(small.root.count)) }
            } else {
                seen += (d as! [[String: Any]]).map { $0["personID"] as! Int }
                target = nil
            }
            #expect(pages < 30)
        }
        let oneShot = try results(gateway, escaped("Person?$orderby=lastName,createDate desc"))
        #expect(seen == oneShot.map { $0["personID"] as! Int })
        #expect(Set(seen).count == 60)
    }

    @Test(arguments: TestGateway.engines) func limitsNameTheirBound(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let deep = try gateway.get("Person?$expand=" + Array(repeating: "PersonCar/Person", count: 4).joined(separator: "/"))
        #expect(deep.status == 400)
        #expect(try deep.errorMessage().contains("maximum $expand depth"))
        let wide = try gateway.get("Person?$expand=" + Array(repeating: "PersonCar", count: 21).joined(separator: ","))
        #expect(try wide.errorMessage().contains("maximum $expand breadth"))
        let top = try gateway.get("Person?$top=100001")
        #expect(try top.errorMessage().contains("maximum $top"))
        #expect(try top.errorMessage().contains("--max-top"))
        let big = try gateway.get(escaped("Person?$filter=" + Array(repeating: "personID eq 1", count: 300).joined(separator: " or ")))
        #expect(big.status == 400)
        #expect(try big.errorMessage().contains("--max-filter-nodes"))
    }

    @Test(arguments: TestGateway.engines) func unknownNamesInOptionsAre400(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        for target in ["Person?$filter=nope eq 1", "Person?$orderby=nope", "Person?$filter=lastName eq", "Person?$filter=firstName gt 5"] {
            let response = try gateway.get(escaped(target))
            #expect(response.status == 400, "\(target)")
            _ = try response.errorMessage()
        }
    }
}
