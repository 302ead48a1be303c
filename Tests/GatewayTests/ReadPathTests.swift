import Foundation
@testable import ODataHTTP
@testable import ODataStore
import PostgresStore
@testable import SQLiteStore
import ODataURI
import Testing

/// Reads write each entity from a row: read in place (joined expansions, a single entity's
/// collections read as written) or kept in an `EntityCursor` while the levels below expanded
/// collections are read. Every way must give the same JSON and ETags, on either engine.
@Suite struct ReadPathTests {
    /// The entities of a response, each without `navigation`, and the ETag header if any.
    private func entities(_ gateway: TestGateway, _ target: String, without navigation: String) throws -> (entities: [NSDictionary], etag: String?) {
        let response = try gateway.get(target)
        #expect(response.status == 200, "\(target): \(response.text.prefix(300))")
        let d = try response.d()
        let objects: [[String: Any]]
        if let single = d as? [String: Any], single["__metadata"] != nil {
            objects = [single]
        } else if let wrapped = d as? [String: Any] {
            objects = try #require(wrapped["results"] as? [[String: Any]])
        } else {
            objects = try #require(d as? [[String: Any]])
        }
        let stripped = objects.map { object -> NSDictionary in
            var object = object
            object[navigation] = nil
            return object as NSDictionary
        }
        return (stripped, response.header("ETag"))
    }

    private func expectSameEntities(_ gateway: TestGateway, _ target: String, expanding navigation: String) throws {
        let separator = target.contains("?") ? "&" : "?"
        let plain = try entities(gateway, target, without: navigation)
        let expanded = try entities(gateway, target + separator + "$expand=" + navigation, without: navigation)
        #expect(!plain.entities.isEmpty)
        #expect(plain.entities == expanded.entities, "\(target)")
        // One entity's tag cannot vouch for what is expanded into its answer (`RepresentationTag`).
        #expect(expanded.etag == nil, "\(target)")
    }

    @Test(arguments: TestGateway.engines) func plainAndExpandedReadsWriteTheSameEntities(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        try expectSameEntities(gateway, "Person(1)", expanding: "PersonCar")
        try expectSameEntities(gateway, "Person?$top=5", expanding: "PersonCar")
        try expectSameEntities(gateway, "Person?$orderby=lastName desc&$top=3&$inlinecount=allpages", expanding: "PersonCar")
        try expectSameEntities(gateway, "Car?$select=make,model", expanding: "PersonCar")
        try expectSameEntities(gateway, "PersonCarMaintenance?$top=4", expanding: "Maintenance")
    }

    /// Requests of one kept parse shape (`ParseCache`) share its plans: each gets its own
    /// entity, whatever form its key takes and whatever else it asks, and a missing one its 404.
    @Test(arguments: TestGateway.engines) func eachKeyedTargetReadsItsOwnEntity(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let targets = [("Person(3)", 3), ("Person(1)", 1), ("Person(003)", 3), ("Person(personID=2)", 2),
                       ("Person(1)?$select=firstName,personID", 1), ("Person(2)?$expand=PersonCar", 2), ("Person(3)", 3)]
        // Twice: the second round finds every shape kept.
        for _ in 0..<2 {
            for (target, id) in targets {
                let entity = try #require(try gateway.get(target).d() as? [String: Any], "\(target)")
                #expect(entity["personID"] as? Int == id, "\(target)")
            }
            let missing = try gateway.get("Person(999)")
            #expect(missing.status == 404)
            #expect(try missing.errorMessage() == "Resource not found for the segment 'Person(999)'.")
        }
    }

    /// Many services share one maintenance item, written under each of them: each must be
    /// that parent's own, complete entity.
    @Test(arguments: TestGateway.engines) func sharedExpandedEntitiesAreEachTheRightOne(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let listed = try entities(gateway, "PersonCarMaintenance?$top=40&$expand=Maintenance", without: "")
        var shared: [String: Int] = [:]
        for service in listed.entities {
            let uri = try #require((service["__metadata"] as? [String: Any])?["uri"] as? String)
            let expanded = try #require(service["Maintenance"] as? NSDictionary)
            let own = try entities(gateway, String(uri.dropFirst(gateway.root.count)) + "/Maintenance", without: "")
            #expect(own.entities == [expanded], "\(uri)")
            shared[(expanded["__metadata"] as? [String: Any])?["uri"] as? String ?? "", default: 0] += 1
        }
        #expect(shared.values.contains { $0 > 1 }, "the seed data has services that share a maintenance item")
    }

    /// Each response's URIs are below the root the client named in its Host header, however
    /// requests with different hosts follow one another on the server's threads.
    @Test(arguments: TestGateway.engines) func uRIsFollowTheHostHeaderOfEachRequest(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        for host in ["a.example:8080", "b.example", "a.example:8080", "[::1]:9000", "b.example"] {
            let headers = ["Accept": "application/json", "Host": host]
            let entity = try gateway.request("GET", "Person(1)", headers: headers)
            let uri = try #require(((try entity.d() as? [String: Any])?["__metadata"] as? [String: Any])?["uri"] as? String)
            #expect(uri == "http://\(host)/CarDealer.svc/Person(1)")
            let page = try gateway.request("GET", "Person?$top=1&$inlinecount=allpages", headers: headers)
            let first = try #require(((try page.d() as? [String: Any])?["results"] as? [[String: Any]])?.first)
            let deferred = (first["PersonCar"] as? [String: Any])?["__deferred"] as? [String: Any]
            #expect(deferred?["uri"] as? String == "http://\(host)/CarDealer.svc/Person(1)/PersonCar")
        }
    }

    @Test(arguments: TestGateway.engines) func theETagHeaderMatchesTheMetadataInCollections(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let single = try entities(gateway, "Person(2)", without: "PersonCar")
        let listed = try entities(gateway, "Person?$filter=personID eq 2", without: "PersonCar")
        let metadata = try #require(listed.entities.first?["__metadata"] as? [String: Any])
        #expect(single.etag != nil)
        #expect(metadata["etag"] as? String == single.etag)
    }

    /// A single entity's streamed expansions are read while its response is written, inside
    /// the request's read scope: they share the entity's snapshot. A PersonCar another
    /// connection commits between the entity and its expansion is not in the answer, and is in
    /// the next one.
    @Test(arguments: TestGateway.engines) func streamedExpansionsShareTheEntitysSnapshot(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let database = try gateway.openConnection()
        let writer = try gateway.openConnection()
        let reader = EntityReader(connection: database)
        let info = try UriParser(model: gateway.model).parse(path: "Person(1)", query: "$expand=PersonCar")
        guard case .entity(let path) = info.resource else { throw URIError.badRequest("not an entity") }
        let personCar = try #require(gateway.model.entitySet(named: "Person")?.entityType.navigationProperty(named: "PersonCar"))
        func personCarKeys(committingOneFirst: Bool) throws -> [Int64] {
            var keys: [Int64] = []
            _ = try database.readScope { try reader.withSingle(path, streaming: info.options.expand) { person in
                if committingOneFirst {
                    try writer.execute(#"INSERT INTO "PersonCar" ("personID", "carID", "createStamp") VALUES (1, 3, 0)"#)
                }
                guard case .lent(let lent)? = person.children(for: personCar) else { return }
                try lent.forEach { row in
                    if case .integer(let key) = row.record.values[0] { keys.append(key) }
                }
            } }
            return keys
        }
        let before = try personCarKeys(committingOneFirst: false)
        #expect(!before.isEmpty)
        #expect(Self.isOutsideTransaction(database), "no explicit transaction is left open")
        #expect(try personCarKeys(committingOneFirst: true) == before, "the insert committed during the read is not in its snapshot")
        #expect(try personCarKeys(committingOneFirst: false).count == before.count + 1, "the next read sees it")
    }

    private static func isOutsideTransaction(_ connection: any SQLConnection) -> Bool {
        if let database = connection as? Database { return database.isInAutocommit }
        if let postgres = connection as? PostgresConnection { return !postgres.isInTransaction }
        return false
    }

    /// A single entity's single-valued expansions are joined to its row, as a page's are; the
    /// entity and its Car are those a page kept in a cursor writes, and a missing entity is a 404.
    @Test(arguments: TestGateway.engines) func aSingleEntityJoinsItsSingleValuedExpansions(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        for key in [1, 2, 5] {
            let single = try #require(try entities(gateway, "PersonCar(\(key))?$expand=Car", without: "PersonCarMaintenance").entities.first)
            let listed = try #require(try entities(gateway, TestGateway.encodeQuery("PersonCar?$filter=personCarID eq \(key)&$expand=Car,PersonCarMaintenance"),
                                                   without: "PersonCarMaintenance").entities.first)
            #expect(single["Car"] as? NSDictionary != nil)
            #expect(single == listed, "PersonCar(\(key))")
        }
        #expect(try gateway.get("PersonCar(999999)?$expand=Car").status == 404)
        let both = try #require(try gateway.get("PersonCar(1)?$expand=Car,PersonCarMaintenance").d() as? [String: Any])
        #expect(both["Car"] is [String: Any] && both["PersonCarMaintenance"] != nil)
    }

    /// An expanded collection is read while its entity is written: a failure there is thrown
    /// there, and the response is an OData error, not the document written so far. The
    /// request's read scope ends with it, so the next request is served.
    @Test(arguments: TestGateway.engines) func aFailureReadingAnExpansionIsAnErrorNotAPartialDocument(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let database = try gateway.openConnection()
        try database.execute(#"ALTER TABLE "PersonCar" RENAME TO "PersonCarAway""#)
        let failed = try gateway.get("Person(1)?$expand=PersonCar")
        #expect(failed.status == 500, "\(failed.text.prefix(300))")
        let error = try #require(try JSONSerialization.jsonObject(with: Data(failed.body)) as? [String: Any])
        #expect(error["error"] != nil && error["d"] == nil, "\(failed.text.prefix(300))")
        try database.execute(#"ALTER TABLE "PersonCarAway" RENAME TO "PersonCar""#)
        #expect(try gateway.get("Person(1)?$expand=PersonCar").status == 200)
        #expect(try gateway.get("Person(2)").status == 200)
    }

    /// Text stored by another program may hold bytes that are not UTF-8: both paths answer it
    /// repaired (U+FFFD), in valid JSON, with the same ETag. SQLite only: PostgreSQL refuses
    /// such bytes in a UTF8 database, so no row of it can hold them.
    @Test func textThatIsNotUTF8IsRepairedAlikeOnBothPaths() throws {
        let gateway = try TestGateway()
        let database = try gateway.openDatabase()
        // Bad bytes in short text (read byte by byte) and in the first eight bytes of longer text
        // (read a word at a time).
        try database.execute("""
            UPDATE Person SET lastName = CAST(X'536DFF6974' AS TEXT), firstName = 'Zoë 日本',
                ssn = CAST(X'414243FF454647484950' AS TEXT) WHERE personID = 1
            """)
        let fromRow = try entities(gateway, "Person(1)", without: "PersonCar")
        #expect(fromRow.entities.first?["lastName"] as? String == "Sm\u{FFFD}it")
        #expect(fromRow.entities.first?["ssn"] as? String == "ABC\u{FFFD}EFGHIP")
        // Each bad byte where only one of the loads that check a short text sees it: 3 bytes (read
        // byte by byte), in the second of two 4-byte loads, in the last word's overlapping load.
        try database.execute("""
            UPDATE Person SET lastName = CAST(X'41FF42' AS TEXT), firstName = CAST(X'41424344FF4647' AS TEXT),
                ssn = CAST(X'4142434445464748FF' AS TEXT) WHERE personID = 2
            """)
        let second = try #require(try entities(gateway, "Person(2)", without: "PersonCar").entities.first)
        #expect(second["lastName"] as? String == "A\u{FFFD}B")
        #expect(second["firstName"] as? String == "ABCD\u{FFFD}FG")
        #expect(second["ssn"] as? String == "ABCDEFGH\u{FFFD}")
        // Every path that reads these rows, expanded or not, must send UTF-8.
        for target in ["Person(1)", "Person?$top=2", "Person(1)?$expand=PersonCar", "Person?$top=2&$expand=PersonCar"] {
            #expect(String(validating: try gateway.get(target).body, as: UTF8.self) != nil, "\(target)")
        }
        #expect(fromRow.entities.first?["firstName"] as? String == "Zoë 日本")
        try expectSameEntities(gateway, "Person(1)", expanding: "PersonCar")
        try expectSameEntities(gateway, "Person?$filter=personID le 2", expanding: "PersonCar")
    }
}

/// A single entity whose `$expand` names collections (each joining at most single-valued
/// navigations) is written as it is read: the entity from its row, each expanded entity from
/// the row of one statement per collection (`ExpansionStream`). The same entity read as part
/// of a collection is kept in a cursor; both must write the same JSON.
@Suite struct StreamedExpansionTests {
    /// `Set(key)?options`, and the same entity from `Set?$filter=key eq ...&options`.
    private func expectStreamedAsListed(_ gateway: TestGateway, _ set: String, key: String, _ options: String, headers: [String: String] = [:]) throws {
        let keyProperty = ["Person": "personID", "Car": "carID", "Maintenance": "maintenanceID"][set]!
        var allHeaders = ["Accept": "application/json"]
        allHeaders.merge(headers) { $1 }
        let single = try gateway.request("GET", "\(set)(\(key))?\(options)", headers: allHeaders)
        let listed = try gateway.request("GET", TestGateway.encodeQuery("\(set)?$filter=\(keyProperty) eq \(key)&\(options)"),
                                         headers: allHeaders)
        #expect(single.status == 200 && listed.status == 200, "\(set)(\(key))?\(options): \(single.text.prefix(200))")
        let d = try listed.d()
        let first = (d as? [NSDictionary])?.first ?? ((d as? [String: Any])?["results"] as? [NSDictionary])?.first
        #expect(try single.d() as? NSDictionary == first, "\(set)(\(key))?\(options)")
        // Expanded, the answer has no ETag header (`RepresentationTag`); the entity's tag is in the body.
        #expect(single.header("ETag") == nil)
        #expect(try gateway.get("\(set)(\(key))").header("ETag") == ((first?["__metadata"] as? [String: Any])?["etag"] as? String))
    }

    @Test(arguments: TestGateway.engines) func everyPersonWithCarsAndTheirCars(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        for key in 1...8 {
            try expectStreamedAsListed(gateway, "Person", key: String(key), "$expand=PersonCar,PersonCar/Car")
            try expectStreamedAsListed(gateway, "Person", key: String(key), "$expand=PersonCar")
        }
    }

    @Test(arguments: TestGateway.engines) func selectVersionTwoAndOtherTypes(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        try expectStreamedAsListed(gateway, "Person", key: "1", "$expand=PersonCar/Car&$select=firstName,PersonCar/Car/make")
        try expectStreamedAsListed(gateway, "Person", key: "2", "$expand=PersonCar/Car", headers: ["MaxDataServiceVersion": "2.0"])
        try expectStreamedAsListed(gateway, "Car", key: "1", "$expand=PersonCar/Person")
        try expectStreamedAsListed(gateway, "Maintenance", key: "1", "$expand=PersonCarMaintenance/PersonCar",
                                   headers: ["MaxDataServiceVersion": "2.0"])
    }

    @Test(arguments: TestGateway.engines) func anEntityWithoutRelatedEntitiesExpandsToAnEmptyCollection(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let created = try gateway.send("POST", "Person", json: ["firstName": "Ada", "lastName": "Nocar", "createDate": "/Date(0)/"])
        #expect(created.status == 201, "\(created.text.prefix(300))")
        let key = String(try #require((try created.d() as? [String: Any])?["personID"] as? Int))
        let single = try gateway.get("Person(\(key))?$expand=PersonCar,PersonCar/Car")
        #expect(((try single.d() as? [String: Any])?["PersonCar"] as? [Any])?.isEmpty == true, "\(single.text.prefix(300))")
        try expectStreamedAsListed(gateway, "Person", key: key, "$expand=PersonCar,PersonCar/Car")
    }
}
