import Foundation
import Testing

/// Every resource path of the core: sets, keys, navigation, properties, $value, $count, $links.
@Suite struct ResourcePathTests {
    let gateway: TestGateway
    init() throws { gateway = try TestGateway() }

    @Test func serviceDocumentInJSONAndAtom() throws {
        let json = try gateway.get("")
        #expect(json.status == 200)
        let sets = try (json.d() as! [String: Any])["EntitySets"] as? [String]
        #expect(sets == ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"])

        let xml = try gateway.get("", accept: "application/atomsvc+xml")
        #expect(xml.status == 200)
        #expect(xml.header("Content-Type")?.hasPrefix("application/atomsvc+xml") == true)
        #expect(xml.text.contains("<collection href=\"PersonCarMaintenance\">"))
        #expect(xml.text.contains("xml:base=\"\(gateway.root)\""))
        // A browser's Accept gets a page it shows (`HTMLPageTests`), not a document it downloads.
        #expect(try gateway.get("", accept: "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8").header("Content-Type")?.hasPrefix("text/html") == true)
    }

    @Test func entitySetIsABareArrayInVersionOne() throws {
        let response = try gateway.get("Person")
        #expect(response.status == 200)
        let people = try response.d() as! [[String: Any]]
        #expect(people.count == 60)
        let metadata = people[0]["__metadata"] as? [String: Any]
        #expect(metadata?["uri"] as? String == gateway.root + "Person(1)")
        #expect(metadata?["type"] as? String == "edmexampleModel.Person")
        let deferred = (people[0]["PersonCar"] as? [String: Any])?["__deferred"] as? [String: Any]
        #expect(deferred?["uri"] as? String == gateway.root + "Person(1)/PersonCar")
        // Keys in ascending order, and no foreign-key column leaks out as a property.
        #expect(people.map { $0["personID"] as! Int } == Array(1...60))
        let personCar = try gateway.get("PersonCar(1)").d() as! [String: Any]
        #expect(Set(personCar.keys) == ["__metadata", "personCarID", "createStamp", "Car", "Person", "PersonCarMaintenance"])
    }

    @Test func topSkipAndFormat() throws {
        let page = try gateway.get("Person?$top=3&$skip=2&$format=json", accept: "*/*").d() as! [[String: Any]]
        #expect(page.map { $0["personID"] as! Int } == [3, 4, 5])
        let skipped = try gateway.get("Car?$skip=88").d() as! [[String: Any]]
        #expect(skipped.map { $0["carID"] as! Int } == [89, 90])
        #expect(try (gateway.get("Car?$top=0").d() as! [Any]).isEmpty)
    }

    @Test func navigationToOneAndToMany() throws {
        let car = try gateway.get("PersonCar(1)/Car").d() as! [String: Any]
        #expect(car["carID"] as? Int == 2)
        #expect(car["model"] as? String == "Explorer")

        let cars = try gateway.get("Person(1)/PersonCar").d() as! [[String: Any]]
        #expect(cars.map { $0["personCarID"] as! Int } == [1, 2])

        let keyed = try gateway.get("Person(1)/PersonCar(2)/Car").d() as! [String: Any]
        #expect(keyed["carID"] as? Int == 5)
        // A key that exists but not below this parent is not found.
        #expect(try gateway.get("Person(1)/PersonCar(3)").status == 404)
        // Three levels: Bob's Explorer's maintenance records.
        let records = try gateway.get("Person(1)/PersonCar(1)/PersonCarMaintenance").d() as! [[String: Any]]
        #expect(records.count >= 3)
        let owner = try gateway.get("PersonCarMaintenance(\(records[0]["personCarMaintenanceID"] as! Int))/PersonCar/Person").d() as! [String: Any]
        #expect(owner["lastName"] as? String == "Samson")
    }

    @Test func propertiesAndRawValues() throws {
        let name = try gateway.get("Person(1)/firstName")
        #expect(try name.d() as? [String: String] == ["firstName": "Bob"])
        let raw = try gateway.get("Person(1)/lastName/$value")
        #expect(raw.status == 200)
        #expect(raw.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(raw.text == "Samson")
        let date = try gateway.get("Person(1)/createDate/$value", accept: "*/*")
        #expect(date.text == "2009-10-31T17:08:28.440")
        let dateJSON = try gateway.get("Person(1)/createDate")
        #expect(dateJSON.text == #"{"d":{"createDate":"\/Date(1257008908440)\/"}}"#)
        let decimal = try gateway.get("Maintenance(1)/standardPrice").d() as! [String: Any]
        #expect(decimal["standardPrice"] is String, "Edm.Decimal is a JSON string")
    }

    @Test func counts() throws {
        let all = try gateway.get("Person/$count")
        #expect(all.status == 200)
        #expect(all.text == "60")
        #expect(all.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(all.header("DataServiceVersion") == "2.0;")
        #expect(try gateway.get("Person(1)/PersonCar/$count").text == "2")
        #expect(try gateway.get("Person/$count?$top=5").text == "5")
        #expect(try gateway.get("Person/$count?$skip=58").text == "2")
        #expect(try gateway.get("Person(999)/PersonCar/$count").status == 404)
    }

    @Test func links() throws {
        let many = try gateway.get("Person(1)/$links/PersonCar")
        #expect(many.status == 200)
        let uris = (try many.d() as! [[String: String]]).map { $0["uri"]! }
        #expect(uris == [gateway.root + "PersonCar(1)", gateway.root + "PersonCar(2)"])
        let one = try gateway.get("PersonCar(2)/$links/Car").d() as! [String: String]
        #expect(one == ["uri": gateway.root + "Car(5)"])
        let keyed = try gateway.get("Person(1)/$links/PersonCar(2)").d() as! [String: String]
        #expect(keyed == ["uri": gateway.root + "PersonCar(2)"])
        #expect(try gateway.get("Person(1)/$links/PersonCar(3)").status == 404)
        let counted = try gateway.get("Person(1)/$links/PersonCar?$inlinecount=allpages").d() as! [String: Any]
        #expect(counted["__count"] as? String == "2")
    }

    @Test func expandSeveralPathsAndLevels() throws {
        let records = try gateway.get("PersonCar(1)?$expand=PersonCarMaintenance/Maintenance,Car,Person/PersonCar").d() as! [String: Any]
        let maintenance = records["PersonCarMaintenance"] as! [[String: Any]]
        #expect(!maintenance.isEmpty)
        #expect(maintenance.allSatisfy { ($0["Maintenance"] as? [String: Any])?["description"] is String })
        #expect((records["Car"] as? [String: Any])?["carID"] as? Int == 2)
        let ownersCars = (records["Person"] as? [String: Any])?["PersonCar"] as? [[String: Any]]
        #expect(ownersCars?.count == 2)
        // Expand on a collection: every person carries their cars.
        let people = try gateway.get("Person?$top=5&$expand=PersonCar/Car").d() as! [[String: Any]]
        #expect(people.count == 5)
        #expect(people.allSatisfy { ($0["PersonCar"] as? [[String: Any]])?.isEmpty == false })
    }

    @Test func compositeAndQuotedKeysRoundTrip() throws {
        // A key predicate may name its property.
        let named = try gateway.get("Person(personID=1)").d() as! [String: Any]
        #expect(named["firstName"] as? String == "Bob")
        #expect(try gateway.get("Person(1)/").status == 200)
    }

    @Test func headRequestsAnswerWithoutBody() throws {
        let head = try gateway.request("HEAD", "Person(1)")
        #expect(head.status == 200)
        #expect(head.body.isEmpty)
    }
}
