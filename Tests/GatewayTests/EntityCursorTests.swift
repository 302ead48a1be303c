import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Expansions below expanded collections are read level by level before the response, into an
/// `EntityCursor`, whose rows the serializers write as they write rows read in place. Each
/// level must be what the in-place reads of that level alone answer, in JSON and Atom alike.
@Suite struct EntityCursorTests {
    /// The entities of a 2.0 collection (`results`) or of an expanded collection.
    private static func results(_ value: Any?) throws -> [[String: Any]] {
        if let wrapped = value as? [String: Any], let results = wrapped["results"] as? [[String: Any]] { return results }
        return try #require(value as? [[String: Any]], "not a collection: \(String(describing: value).prefix(200))")
    }

    private static func get(_ gateway: TestGateway, _ target: String) throws -> [[String: Any]] {
        let response = try gateway.get(TestGateway.encodeQuery(target))
        #expect(response.status == 200, "\(target): \(response.text.prefix(300))")
        return try results(try response.d())
    }

    private static func uri(_ entity: [String: Any]) throws -> String {
        try #require((entity["__metadata"] as? [String: Any])?["uri"] as? String)
    }

    private static func without(_ key: String, _ entities: [[String: Any]]) -> [NSDictionary] {
        entities.map { entity in
            var entity = entity
            entity[key] = nil
            return entity as NSDictionary
        }
    }

    /// A page expanded three levels deep with `$select` at each level: every level is the page
    /// its parent's navigation answers on its own (read in place, joined where it can be).
    @Test(arguments: TestGateway.engines) func deepExpandWithSelectOnAPageIsEachLevelReadAlone(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let select = "firstName,PersonCar/createStamp,PersonCar/PersonCarMaintenance/mileage,PersonCar/PersonCarMaintenance/Maintenance/description"
        let people = try Self.get(gateway, "Person?$top=6&$expand=PersonCar/PersonCarMaintenance/Maintenance&$select=" + select)
        #expect(people.count == 6)
        #expect(Self.without("PersonCar", people) == Self.without("PersonCar", try Self.get(gateway, "Person?$top=6&$select=firstName")))
        var services = 0
        for person in people {
            let relative = String(try Self.uri(person).dropFirst(gateway.root.count))
            let personCars = try Self.results(person["PersonCar"])
            #expect(Self.without("PersonCarMaintenance", personCars)
                    == Self.without("PersonCarMaintenance", try Self.get(gateway, relative + "/PersonCar?$select=createStamp")), "\(relative)")
            for personCar in personCars {
                let below = String(try Self.uri(personCar).dropFirst(gateway.root.count))
                let deep = try Self.results(personCar["PersonCarMaintenance"])
                let alone = try Self.get(gateway, below + "/PersonCarMaintenance?$expand=Maintenance&$select=mileage,Maintenance/description")
                #expect(deep.map { $0 as NSDictionary } == alone.map { $0 as NSDictionary }, "\(below)")
                for service in deep {
                    let maintenance = try #require(service["Maintenance"] as? [String: Any])
                    #expect(Set(maintenance.keys) == ["__metadata", "description"])
                    #expect(Set(service.keys) == ["__metadata", "mileage", "Maintenance"])
                    services += 1
                }
            }
        }
        #expect(services > 0, "the seed's first people have serviced cars")
    }

    /// Atom writes the same levels as inline feeds inside inline feeds, entry for entry, and
    /// counts them against the response's entity limit as JSON does.
    @Test(arguments: TestGateway.engines) func atomNestsInlineFeedsAsJSONNestsCollections(engine: TestGateway.Engine) throws {
        let target = TestGateway.encodeQuery("Person?$top=4&$expand=PersonCar/PersonCarMaintenance/Maintenance")
        let gateway = try TestGateway(engine: engine)
        // Each entity's URI, then what it expands, depth first.
        func tree(_ entity: [String: Any]) throws -> [String] {
            var uris = [try Self.uri(entity)]
            for key in ["PersonCar", "PersonCarMaintenance"] where entity[key] != nil && (entity[key] as? [String: Any])?["__deferred"] == nil {
                for child in try Self.results(entity[key]) { uris += try tree(child) }
            }
            if let maintenance = entity["Maintenance"] as? [String: Any] { uris.append(try Self.uri(maintenance)) }
            return uris
        }
        let json = try gateway.get(target).d()
        let fromJSON = try Self.results(json).flatMap(tree)

        let atom = try gateway.get(target, accept: "application/atom+xml")
        #expect(atom.status == 200, "\(atom.text.prefix(300))")
        let feed = try #require(try XMLDocument(data: Data(atom.body)).rootElement())
        func local(_ name: String) -> String { "*[local-name()='\(name)']" }
        func entryTree(_ entry: XMLNode) throws -> [String] {
            var uris = [try #require(try entry.nodes(forXPath: local("id")).first?.stringValue)]
            for link in try entry.nodes(forXPath: "\(local("link"))/\(local("inline"))") {
                let nested = try link.nodes(forXPath: "\(local("feed"))/\(local("entry"))") + link.nodes(forXPath: local("entry"))
                for child in nested { uris += try entryTree(child) }
            }
            return uris
        }
        let fromAtom = try feed.nodes(forXPath: local("entry")).flatMap(entryTree)
        #expect(fromAtom == fromJSON)
        #expect(fromJSON.contains { $0.contains("Maintenance(") && !$0.contains("PersonCarMaintenance(") }, "three levels deep")
        let nestedFeeds = try feed.nodes(forXPath: "//\(local("inline"))/\(local("feed"))//\(local("inline"))/\(local("feed"))")
        #expect(!nestedFeeds.isEmpty, "inline feeds inside inline feeds")

        let expected = RequestLimitsTests.entityCount(json)
        #expect(atom.text.components(separatedBy: "<entry").count - 1 == expected)
        let atLimit = try TestGateway(engine: engine) { $0.limits.maxEntitiesPerResponse = expected }
        #expect(try atLimit.get(target, accept: "application/atom+xml").status == 200)
        let pastLimit = try TestGateway(engine: engine) { $0.limits.maxEntitiesPerResponse = expected - 1 }
        let refused = try pastLimit.get(target, accept: "application/atom+xml")
        #expect(refused.status == 400 && refused.text.contains("(--max-entities-per-response \(expected - 1))"), "\(refused.text.prefix(300))")
        try RequestLimitsTests.expectRefused(try pastLimit.get(target), naming: "max-entities-per-response", value: expected - 1)
    }

    /// A level that fails to read is an OData error, in either representation, never the
    /// document of the levels above it; the next request is served.
    @Test func aLevelThatFailsToReadIsAnErrorNotAPartialDocument() throws {
        let gateway = try TestGateway()
        let database = try gateway.openDatabase()
        let targets = ["Person?$top=3&$expand=PersonCar/PersonCarMaintenance", "Person(1)?$expand=PersonCar/PersonCarMaintenance/Maintenance"]
        let before = try targets.map { try gateway.get(TestGateway.encodeQuery($0)).text }
        try database.execute("ALTER TABLE PersonCarMaintenance RENAME TO PersonCarMaintenanceAway")
        for target in targets {
            for accept in ["application/json", "application/atom+xml"] {
                let failed = try gateway.get(TestGateway.encodeQuery(target), accept: accept)
                #expect(failed.status == 500, "\(target) \(accept): \(failed.text.prefix(300))")
                #expect(!failed.text.contains("Person(1)"), "no entity of the levels above: \(failed.text.prefix(300))")
            }
        }
        try database.execute("ALTER TABLE PersonCarMaintenanceAway RENAME TO PersonCarMaintenance")
        #expect(try targets.map { try gateway.get(TestGateway.encodeQuery($0)).text } == before)
    }

    /// A statement's row lends text that was not UTF-8 as a repaired copy it keeps only until
    /// its next row: the rows a cursor keeps hold their own copies, each row its own text.
    @Test func keptRowsKeepTheirOwnRepairedText() throws {
        let gateway = try TestGateway()
        let database = try gateway.openDatabase()
        try database.execute("UPDATE PersonCarMaintenance SET technician = CAST(X'FF' || personCarMaintenanceID AS TEXT)")
        try database.execute("UPDATE Person SET ssn = CAST(X'FE' || personID AS TEXT) WHERE personID <= 3")
        let people = try Self.get(gateway, "Person?$top=3&$expand=PersonCar/PersonCarMaintenance")
        var services = 0
        for person in people {
            #expect(person["ssn"] as? String == "\u{FFFD}\(try #require(person["personID"] as? Int))")
            for personCar in try Self.results(person["PersonCar"]) {
                for service in try Self.results(personCar["PersonCarMaintenance"]) {
                    let id = try #require(service["personCarMaintenanceID"] as? Int)
                    #expect(service["technician"] as? String == "\u{FFFD}\(id)")
                    services += 1
                }
            }
        }
        #expect(services > 1)
    }
}
