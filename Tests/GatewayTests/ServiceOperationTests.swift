import CSDL
import EDM
import Foundation
import ODataHTTP
import ODataURI
import Testing

/// Service operations declared in the schema (`FunctionImport` with storage annotations), over
/// raw HTTP against the car dealer's two: `CarsDueForService` and `TotalMaintenanceCost`. The
/// expected answers are computed here from the seed files, not by the gateway.
@Suite struct ServiceOperationTests {
    /// The seed rows the expectations are computed from.
    struct Seed {
        var intervals: [Int: Int] = [:]          // maintenanceID -> intervalMiles
        var owners: [Int: Int] = [:]             // personCarID -> personID
        var services: [(id: Int, mileage: Int, cost: Decimal, maintenance: Int, personCar: Int)] = []

        init() throws {
            func rows(_ name: String) throws -> [[String: Any]] {
                let url = TestGateway.carDealerSeed.appendingPathComponent(name + ".json")
                return try JSONSerialization.jsonObject(with: Data(contentsOf: url)) as! [[String: Any]]
            }
            for row in try rows("Maintenance") {
                if let interval = row["intervalMiles"] as? Int { intervals[row["maintenanceID"] as! Int] = interval }
            }
            for row in try rows("PersonCar") { owners[row["personCarID"] as! Int] = row["Person"] as? Int }
            for row in try rows("PersonCarMaintenance") {
                services.append((row["personCarMaintenanceID"] as! Int, row["mileage"] as! Int,
                                 Decimal(string: row["cost"] as! String)!, row["Maintenance"] as! Int, row["PersonCar"] as! Int))
            }
        }

        /// CarsDueForService's rows: due mileage at or below `miles`, in due-mileage order, then key.
        func due(by miles: Int) -> [Int] {
            services.compactMap { s -> (Int, Int)? in
                guard let interval = intervals[s.maintenance], s.mileage + interval <= miles else { return nil }
                return (s.mileage + interval, s.id)
            }.sorted { $0 < $1 }.map(\.1)
        }

        func totalCost(of person: Int) -> Decimal {
            services.filter { owners[$0.personCar] == person }.reduce(Decimal(0)) { $0 + $1.cost }
        }
    }

    let seed: Seed
    init() throws { seed = try Seed() }

    private static func entities(_ response: RawHTTPResponse) throws -> (rows: [[String: Any]], count: String?, next: String?) {
        #expect(response.status == 200, "\(response.text.prefix(300))")
        let d = try response.d() as! [String: Any]
        return (d["results"] as! [[String: Any]], d["__count"] as? String, d["__next"] as? String)
    }

    @Test func theOperationsAreInMetadataWithoutTheirQueries() throws {
        let gateway = try TestGateway()
        let response = try gateway.get("$metadata", accept: "application/xml")
        #expect(response.status == 200)
        let text = response.text
        #expect(text.contains(#"<FunctionImport Name="CarsDueForService" ReturnType="Collection(edmexampleModel.PersonCarMaintenance)" EntitySet="PersonCarMaintenance" m:HttpMethod="GET">"#), "\(text)")
        #expect(text.contains(#"<Parameter Name="miles" Type="Edm.Int32" Mode="In" Nullable="false"/>"#))
        #expect(text.contains(#"<FunctionImport Name="TotalMaintenanceCost" ReturnType="Edm.Decimal" m:HttpMethod="GET">"#))
        #expect(!text.contains("Filter="), "the storage annotations stay the gateway's")
        let document = try CSDLReader.read(data: Data(response.body))
        let imports = document.schemas.flatMap(\.entityContainers).flatMap(\.functionImports)
        #expect(imports.map(\.name) == ["CarsDueForService", "TotalMaintenanceCost"])
        #expect(imports.first?.parameters.first?.type == "Edm.Int32")
    }

    @Test(arguments: [0, 20_000, 60_000, 1_000_000])
    func entitiesAreTheFilteredSetInTheDeclaredOrderAcrossPages(miles: Int) throws {
        let gateway = try TestGateway { $0.defaultPageSize = 7 }
        var target: String? = "CarsDueForService?miles=\(miles)&$select=personCarMaintenanceID"
        var got: [Int] = []
        var pages = 0
        while let next = target, pages < 200 {
            let page = try Self.entities(try gateway.get(next))
            got += page.rows.map { $0["personCarMaintenanceID"] as! Int }
            if let link = page.next {
                #expect(link.contains("miles=\(miles)"), "the next link keeps the parameter: \(link)")
                target = String(link.dropFirst(gateway.root.count))
            } else {
                target = nil
            }
            pages += 1
        }
        #expect(got == seed.due(by: miles))
    }

    @Test func resultsComposeWithTheQueryOptions() throws {
        let gateway = try TestGateway()
        let miles = 60_000
        let target = "CarsDueForService?miles=\(miles)&$filter=cost gt 100M&$orderby=cost desc,personCarMaintenanceID"
            + "&$top=5&$skip=1&$inlinecount=allpages&$select=personCarMaintenanceID,cost,PersonCar&$expand=PersonCar/Car"
        let page = try Self.entities(try gateway.get(TestGateway.encodeQuery(target)))
        let due = Set(seed.due(by: miles))
        let expected = seed.services.filter { due.contains($0.id) && $0.cost > 100 }
            .sorted { $0.cost != $1.cost ? $0.cost > $1.cost : $0.id < $1.id }
        #expect(page.count == String(expected.count))
        #expect(page.rows.map { $0["personCarMaintenanceID"] as! Int } == Array(expected.dropFirst().prefix(5).map(\.id)))
        for row in page.rows {
            #expect(row["notes"] == nil, "$select leaves other properties out")
            let car = (row["PersonCar"] as? [String: Any])?["Car"] as? [String: Any]
            #expect(car?["make"] is String, "$expand=PersonCar/Car: \(row)")
            let uri = (row["__metadata"] as? [String: Any])?["uri"] as? String
            #expect(uri?.contains("/PersonCarMaintenance(") == true, "entities keep their canonical URIs")
        }
        let atom = try gateway.get(TestGateway.encodeQuery("CarsDueForService?miles=\(miles)&$top=2"), accept: "application/atom+xml")
        #expect(atom.status == 200)
        #expect(atom.text.contains("<feed") && atom.text.components(separatedBy: "<entry").count == 3)
    }

    @Test func anAggregateIsComputedOverTheFilteredSet() throws {
        let gateway = try TestGateway()
        let people = Set(seed.owners.values).sorted()
        #expect(people.count > 3)
        for person in people.prefix(8) + [9_999] {
            let response = try gateway.get("TotalMaintenanceCost?personID=\(person)")
            #expect(response.status == 200, "\(response.text.prefix(300))")
            let d = try response.d() as! [String: Any]
            let text = d["TotalMaintenanceCost"] as? String
            #expect(text.flatMap { Decimal(string: $0) } == seed.totalCost(of: person), "person \(person): \(response.text)")
        }
        let xml = try gateway.get("TotalMaintenanceCost?personID=\(people[0])&$format=xml")
        #expect(xml.status == 200)
        #expect(xml.text.contains("<d:TotalMaintenanceCost") && xml.text.contains("m:type=\"Edm.Decimal\""), "\(xml.text)")
    }

    @Test(arguments: [
        ("CarsDueForService", 400, "'miles'"),
        ("CarsDueForService?miles=", 400, "'miles'"),
        ("CarsDueForService?miles='60000'", 400, "'miles'"),
        ("CarsDueForService?miles=1.5", 400, "'miles'"),
        ("CarsDueForService?miles=99999999999", 400, "'miles'"),
        ("CarsDueForService?miles=null", 400, "'miles'"),
        ("CarsDueForService?miles=1) or (1 eq 1", 400, "'miles'"),
        ("CarsDueForService?miles=1&miles=2", 400, "more than once"),
        ("CarsDueForService?miles=1&$filter=@miles eq 1", 400, "no parameter named"),
        ("TotalMaintenanceCost?personID=x", 400, "'personID'"),
        ("TotalMaintenanceCost?personID=1&$top=1", 400, "$top"),
        ("TotalMaintenanceCost?personID=1&$filter=cost gt 1", 400, "$filter"),
        ("CarsDueForService(1)?miles=1", 404, ""),
        ("CarsDueForService/$count?miles=1", 404, ""),
    ] as [(String, Int, String)])
    func badCallsAreRefusedNamingTheProblem(_ target: String, _ status: Int, _ fragment: String) throws {
        let gateway = try TestGateway()
        let response = try gateway.get(TestGateway.encodeQuery(target))
        #expect(response.status == status, "\(target): \(response.text.prefix(300))")
        if !fragment.isEmpty { #expect(try response.errorMessage().contains(fragment), "\(target): \(response.text.prefix(300))") }
    }

    @Test func onlyTheDeclaredMethodCallsAnOperation() throws {
        let gateway = try TestGateway()
        let post = try gateway.request("POST", "CarsDueForService?miles=1", headers: ["Content-Type": "application/json", "Accept": "application/json"],
                                       body: Array("{}".utf8))
        #expect(post.status == 405)
        #expect(post.header("Allow") == "GET")
        let before = try gateway.get("PersonCarMaintenance/$count").text
        let merge = try gateway.request("POST", "TotalMaintenanceCost?personID=1",
                                        headers: ["X-HTTP-Method": "MERGE", "Content-Type": "application/json"], body: Array("{}".utf8))
        #expect(merge.status == 405)
        #expect(try gateway.get("PersonCarMaintenance/$count").text == before, "nothing was written")
    }

    // MARK: The schema's declarations

    private static func model(replacing old: String, with new: String) throws -> EntityModel {
        let text = try String(contentsOf: TestGateway.carDealerSchema, encoding: .utf8)
        #expect(text.contains(old))
        return try ModelLoader.load(CSDLReader.read(data: Data(text.replacingOccurrences(of: old, with: new).utf8)))
    }

    @Test(arguments: [
        (#"store:Aggregate="sum(cost)""#, #"store:Aggregate="sum(costs)""#, "costs"),
        (#"store:Aggregate="sum(cost)""#, #"store:Aggregate="median(cost)""#, "median"),
        (#"store:From="PersonCarMaintenance""#, "", "store:From"),
        (#"EntitySet="PersonCarMaintenance" m:HttpMethod="GET""#, #"EntitySet="Car" m:HttpMethod="GET""#, "not the type"),
        (#"Type="Edm.Int32" Mode="In" Nullable="false"/>"#, #"Type="edmexampleModel.Car" Mode="In"/>"#, "primitive"),
        (#"m:HttpMethod="GET""#, #"m:HttpMethod="DELETE""#, "GET or POST"),
    ] as [(String, String, String)])
    func malformedDeclarationsStopTheModel(_ old: String, _ new: String, _ fragment: String) throws {
        do {
            _ = try Self.model(replacing: old, with: new)
            Issue.record("\(new) was accepted")
        } catch let error as ModelError {
            #expect(error.message.contains(fragment), "\(error.message)")
        }
    }

    @Test func filtersThatDoNotBindAreFoundAtStart() throws {
        try ODataService.checkServiceOperations(of: try ModelLoader.load(contentsOf: TestGateway.carDealerSchema))
        let unknownProperty = try Self.model(replacing: "PersonCar/Person/personID eq @personID", with: "PersonCar/Person/id eq @personID")
        #expect(throws: URIError.self) { try ODataService.checkServiceOperations(of: unknownProperty) }
        let unknownParameter = try Self.model(replacing: "PersonCar/Person/personID eq @personID", with: "PersonCar/Person/personID eq @person")
        do {
            try ODataService.checkServiceOperations(of: unknownParameter)
            Issue.record("an unknown parameter was accepted")
        } catch {
            #expect(error.message.contains("TotalMaintenanceCost") && error.message.contains("'person'"), "\(error.message)")
        }
    }
}
