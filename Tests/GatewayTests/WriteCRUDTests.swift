import Foundation
import ODataStore
import SQLiteStore
import Testing

/// Create, update and delete over HTTP against a real gateway and SQLite file, for every entity
/// set of the car-dealer model.
@Suite struct WriteCRUDTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    static let stamp = "/Date(1577836800000)/"  // 2020-01-01T00:00:00

    // MARK: Create

    @Test(arguments: TestGateway.engines) func createAnswers201WithLocationServerKeyAndETag(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.send("POST", "Person", json: [
            "personID": 0, "firstName": "Ann", "lastName": "Lee", "createDate": Self.stamp,
        ])
        #expect(response.status == 201, "\(response.text)")
        #expect(response.header("DataServiceVersion") == "1.0;")
        #expect(response.header("Content-Type") == "application/json;charset=utf-8")
        #expect(response.header("Location") == gateway.root + "Person(61)", "the server assigns the key; the 0 sent is ignored")
        let person = try response.d() as! [String: Any]
        #expect(person["personID"] as? Int == 61)
        #expect(person["ssn"] is NSNull, "an omitted nullable property is null")
        #expect(person["createDate"] as? String == Self.stamp)
        let metadata = try response.metadata()
        #expect(metadata["uri"] as? String == response.header("Location"))
        #expect(metadata["etag"] as? String == response.header("ETag"))
        #expect(response.header("ETag")?.hasPrefix("W/\"") == true)

        let read = try gateway.get("Person(61)")
        #expect(read.status == 200)
        #expect(read.header("ETag") == response.header("ETag"))
        #expect((try read.d() as! [String: Any])["firstName"] as? String == "Ann")
    }

    @Test(arguments: TestGateway.engines) func createInEverySetWithBindings(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let car = try gateway.send("POST", "Car", json: ["make": "Saab", "model": "900", "createStamp": Self.stamp])
        #expect(car.status == 201, "\(car.text)")
        let carURI = try #require(car.header("Location"))
        #expect((try car.d() as! [String: Any])["manufactureDate"] is NSNull)

        let maintenance = try gateway.send("POST", "Maintenance", json: [
            "description": "Brake fluid", "category": "Brakes", "laborHours": "1.5", "standardPrice": 89.9,
        ])
        #expect(maintenance.status == 201, "\(maintenance.text)")
        let maintenanceEntity = try maintenance.d() as! [String: Any]
        #expect(maintenanceEntity["laborHours"] as? String == "1.50", "a decimal is kept exactly, at its Scale")
        #expect(maintenanceEntity["standardPrice"] as? String == "89.90")
        #expect(maintenanceEntity["intervalMiles"] is NSNull)
        let maintenanceURI = try #require(maintenance.header("Location"))

        // Bindings by absolute URI and by URI relative to the service root.
        let personCar = try gateway.send("POST", "PersonCar", json: [
            "createStamp": Self.stamp,
            "Person": ["__metadata": ["uri": "Person(3)"]],
            "Car": ["__metadata": ["uri": carURI]],
        ])
        #expect(personCar.status == 201, "\(personCar.text)")
        let personCarURI = try #require(personCar.header("Location"))
        let personCarPath = String(personCarURI.dropFirst(gateway.root.count))
        #expect(try gateway.entity(personCarPath + "/Person")["personID"] as? Int == 3)
        #expect(try gateway.entity(personCarPath + "/Car")["make"] as? String == "Saab")

        let record = try gateway.send("POST", "PersonCarMaintenance", json: [
            "serviceDate": "2020-02-03T10:00:00", "mileage": 12000, "cost": "49.95", "technician": "Kim",
            "createStamp": Self.stamp,
            "PersonCar": ["__metadata": ["uri": personCarURI]],
            "Maintenance": ["__metadata": ["uri": maintenanceURI]],
        ])
        #expect(record.status == 201, "\(record.text)")
        let recordPath = String(try #require(record.header("Location")).dropFirst(gateway.root.count))
        let stored = try gateway.entity(recordPath)
        #expect(stored["serviceDate"] as? String == "/Date(1580724000000)/", "ISO dates are accepted and stored as UTC milliseconds")
        #expect(stored["notes"] is NSNull)
        #expect(try gateway.entity(recordPath + "/Maintenance")["description"] as? String == "Brake fluid")
        #expect(try gateway.entity(recordPath + "/PersonCar")["personCarID"] as? Int == 107)

        // The hidden foreign-key columns hold the links.
        let rows = try gateway.openConnection().rows("SELECT \"personID\", \"carID\" FROM \"PersonCar\" WHERE \"personCarID\" = 107")
        #expect(rows == [[.integer(3), .integer(91)]])
    }

    @Test(arguments: TestGateway.engines) func deepInsertCreatesTheWholeTreeInOneTransaction(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.send("POST", "Person", json: [
            "firstName": "Deep", "lastName": "Insert", "createDate": Self.stamp,
            "PersonCar": [
                [
                    "createStamp": Self.stamp,
                    "Car": ["__metadata": ["uri": "Car(1)"]],
                    "PersonCarMaintenance": [
                        ["serviceDate": Self.stamp, "mileage": 5, "cost": "10", "createStamp": Self.stamp,
                         "Maintenance": ["__metadata": ["uri": "Maintenance(2)"]]],
                    ],
                ],
                [
                    "createStamp": Self.stamp,
                    "Car": ["make": "Volvo", "model": "240", "createStamp": Self.stamp],
                ],
            ],
        ])
        #expect(response.status == 201, "\(response.text)")
        let person = try response.d() as! [String: Any]
        #expect(person["personID"] as? Int == 61)
        let cars = try gateway.get("Person(61)/PersonCar?$expand=Car,PersonCarMaintenance/Maintenance").d() as! [[String: Any]]
        #expect(cars.count == 2)
        #expect(Set(cars.compactMap { ($0["Car"] as? [String: Any])?["make"] as? String }) == ["Chevrolet", "Volvo"])
        let services = cars.flatMap { $0["PersonCarMaintenance"] as? [[String: Any]] ?? [] }
        #expect(services.count == 1)
        #expect((services.first?["Maintenance"] as? [String: Any])?["maintenanceID"] as? Int == 2)
        #expect(try gateway.rowCount("Car") == 91)

        // A failure deep inside the tree leaves nothing of it behind.
        let before = try gateway.tableContents()
        let failing = try gateway.send("POST", "Person", json: [
            "firstName": "Half", "lastName": "Done", "createDate": Self.stamp,
            "PersonCar": [
                ["createStamp": Self.stamp, "Car": ["make": "Fiat", "model": "Uno", "createStamp": Self.stamp],
                 "PersonCarMaintenance": [
                    ["serviceDate": Self.stamp, "mileage": 5, "cost": "10", "createStamp": Self.stamp,
                     "Maintenance": ["__metadata": ["uri": "Maintenance(999)"]]],
                 ]],
            ],
        ])
        #expect(failing.status == 400)
        #expect(try failing.errorMessage().contains("FK_PersonCarMaintenance_Maintenance"))
        #expect(try gateway.tableContents() == before)
    }

    @Test(arguments: TestGateway.engines) func postToANavigationPropertyCreatesAndLinks(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let created = try gateway.send("POST", "Person(2)/PersonCar", json: [
            "createStamp": Self.stamp, "Car": ["__metadata": ["uri": "Car(7)"]],
        ])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location") == gateway.root + "PersonCar(107)")
        #expect(try gateway.entity("PersonCar(107)/Person")["personID"] as? Int == 2)
        let links = try gateway.get("Person(2)/$links/PersonCar").d() as! [[String: Any]]
        #expect(links.contains { $0["uri"] as? String == gateway.root + "PersonCar(107)" })

        let service = try gateway.send("POST", "Person(2)/PersonCar(107)/PersonCarMaintenance", json: [
            "serviceDate": Self.stamp, "mileage": 1, "cost": 0, "createStamp": Self.stamp,
            "Maintenance": ["__metadata": ["uri": "Maintenance(3)"]],
        ])
        #expect(service.status == 201, "\(service.text)")
        #expect(try gateway.entity("PersonCarMaintenance(259)/PersonCar")["personCarID"] as? Int == 107)

        // To-one, where the new entity is the principal: the source is linked to it.
        let car = try gateway.send("POST", "PersonCar(107)/Car", json: ["make": "Audi", "model": "80", "createStamp": Self.stamp])
        #expect(car.status == 201, "\(car.text)")
        #expect(try gateway.entity("PersonCar(107)/Car")["make"] as? String == "Audi")

        let before = try gateway.tableContents()
        let contradiction = try gateway.send("POST", "Person(2)/PersonCar", json: [
            "createStamp": Self.stamp, "Car": ["__metadata": ["uri": "Car(7)"]], "Person": ["__metadata": ["uri": "Person(3)"]],
        ])
        #expect(contradiction.status == 400)
        #expect(try contradiction.errorMessage().contains("FK_PersonCar_Person"))
        let missingParent = try gateway.send("POST", "Person(999)/PersonCar", json: ["createStamp": Self.stamp, "Car": ["__metadata": ["uri": "Car(7)"]]])
        #expect(missingParent.status == 404)
        #expect(try gateway.tableContents() == before)
    }

    // MARK: Update

    @Test(arguments: TestGateway.engines) func putReplacesTheEntityAndResetsWhatItLeavesOut(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let carsBefore = (try gateway.get("Person(2)/PersonCar").d() as! [Any]).count
        let put = try gateway.send("PUT", "Person(2)", json: ["firstName": "Alicia", "lastName": "Samson", "createDate": Self.stamp])
        #expect(put.status == 204, "\(put.text)")
        #expect(put.body.isEmpty)
        #expect(put.header("DataServiceVersion") == "1.0;")
        let person = try gateway.entity("Person(2)")
        #expect(person["firstName"] as? String == "Alicia")
        #expect(person["ssn"] is NSNull, "left out of a PUT, a nullable property goes back to null")
        #expect(put.header("ETag") == (person["__metadata"] as? [String: Any])?["etag"] as? String, "a 204 carries the new ETag")
        #expect((try gateway.get("Person(2)/PersonCar").d() as! [Any]).count == carsBefore, "links are not properties; PUT keeps them")

        // The whole entity read back can be PUT again (metadata and deferred links are ignored).
        var echoed = try gateway.entity("Car(3)")
        echoed["model"] = "Echoed"
        #expect(try gateway.send("PUT", "Car(3)", json: echoed).status == 204)
        #expect(try gateway.entity("Car(3)")["model"] as? String == "Echoed")

        let before = try gateway.tableContents()
        let incomplete = try gateway.send("PUT", "Person(3)", json: ["firstName": "Maria", "createDate": Self.stamp])
        #expect(incomplete.status == 400)
        let message = try incomplete.errorMessage()
        #expect(message.contains("'lastName'") && message.contains("not nullable"), "\(message)")
        #expect(try gateway.tableContents() == before)
    }

    @Test(arguments: TestGateway.engines) func mergeAndPatchChangeOnlyWhatIsSent(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let merge = try gateway.send("MERGE", "Person(3)", json: ["ssn": "123-45-6789"])
        #expect(merge.status == 204, "\(merge.text)")
        let person = try gateway.entity("Person(3)")
        #expect(person["ssn"] as? String == "123-45-6789")
        #expect(person["firstName"] as? String == "Maria")

        let patch = try gateway.send("PATCH", "Maintenance(4)", json: ["intervalMiles": NSNull(), "standardPrice": "19.99"])
        #expect(patch.status == 204, "\(patch.text)")
        let maintenance = try gateway.entity("Maintenance(4)")
        #expect(maintenance["intervalMiles"] is NSNull)
        #expect(maintenance["standardPrice"] as? String == "19.99")
        #expect(maintenance["description"] as? String == "Wheel balance, four wheels")

        // A navigation path addresses the entity as well as its key does.
        #expect(try gateway.send("MERGE", "Person(1)/PersonCar(2)/Car", json: ["model": "Civic"]).status == 204)
        #expect(try gateway.entity("Car(5)")["model"] as? String == "Civic")
        #expect(try gateway.send("MERGE", "PersonCarMaintenance(2)", json: ["notes": "checked"]).status == 204)
        #expect(try gateway.entity("PersonCarMaintenance(2)")["notes"] as? String == "checked")
    }

    @Test(arguments: TestGateway.engines) func methodsTunnelThroughPost(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let merge = try gateway.send("POST", "Car(4)", json: ["model": "Tunnelled"], headers: ["X-HTTP-Method": "MERGE"])
        #expect(merge.status == 204, "\(merge.text)")
        #expect(try gateway.entity("Car(4)")["model"] as? String == "Tunnelled")

        let put = try gateway.send("POST", "Car(4)", json: ["make": "Kia", "model": "Rio", "createStamp": Self.stamp], headers: ["X-HTTP-Method": "PUT"])
        #expect(put.status == 204)
        #expect(try gateway.entity("Car(4)")["manufactureDate"] is NSNull)

        let fresh = try gateway.send("POST", "Car", json: ["make": "Lada", "model": "Niva", "createStamp": Self.stamp])
        let path = String(try #require(fresh.header("Location")).dropFirst(gateway.root.count))
        let delete = try gateway.send("POST", path, body: [], headers: ["X-HTTP-Method": "DELETE", "Content-Type": ""])
        #expect(delete.status == 204)
        #expect(try gateway.get(path).status == 404)

        #expect(try gateway.send("POST", "Car(4)", json: [:], headers: ["X-HTTP-Method": "GET"]).status == 400)
    }

    @Test(arguments: TestGateway.engines) func oneProperty(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let put = try gateway.send("PUT", "Person(4)/firstName", json: ["firstName": "Jim"])
        #expect(put.status == 204, "\(put.text)")
        #expect(try gateway.entity("Person(4)/firstName")["firstName"] as? String == "Jim")

        let raw = try gateway.send("PUT", "Person(4)/lastName/$value", text: "O'Neill", headers: ["Content-Type": "text/plain"])
        #expect(raw.status == 204, "\(raw.text)")
        #expect(try gateway.get("Person(4)/lastName/$value").text == "O'Neill")

        #expect(try gateway.send("PUT", "Maintenance(5)/laborHours/$value", text: "2.5", headers: ["Content-Type": "text/plain"]).status == 204)
        #expect(try gateway.entity("Maintenance(5)")["laborHours"] as? String == "2.50")
        #expect(try gateway.send("PUT", "Car(6)/manufactureDate/$value", text: "2001-02-03T04:05:06", headers: ["Content-Type": "text/plain"]).status == 204)
        #expect(try gateway.entity("Car(6)")["manufactureDate"] as? String == "/Date(981173106000)/")
        #expect(try gateway.send("MERGE", "PersonCarMaintenance(3)/mileage", json: ["mileage": 777]).status == 204)
        #expect(try gateway.entity("PersonCarMaintenance(3)")["mileage"] as? Int == 777)
        #expect(try gateway.send("PUT", "PersonCar(5)/createStamp", json: ["createStamp": Self.stamp]).status == 204)
        #expect(try gateway.entity("PersonCar(5)")["createStamp"] as? String == Self.stamp)

        let delete = try gateway.send("DELETE", "Person(4)/ssn/$value", body: [], headers: ["Content-Type": ""])
        #expect(delete.status == 204)
        #expect(try gateway.entity("Person(4)")["ssn"] is NSNull)

        let before = try gateway.tableContents()
        let notNullable = try gateway.send("DELETE", "Person(4)/firstName", body: [], headers: ["Content-Type": ""])
        #expect(notNullable.status == 400)
        #expect(try notNullable.errorMessage().contains("firstName"))
        let key = try gateway.send("PUT", "Person(4)/personID", json: ["personID": 9])
        #expect(key.status == 400)
        #expect(try key.errorMessage().contains("personID"))
        let badRaw = try gateway.send("PUT", "PersonCarMaintenance(3)/mileage/$value", text: "many", headers: ["Content-Type": "text/plain"])
        #expect(badRaw.status == 400)
        #expect(try badRaw.errorMessage().contains("mileage"))
        let otherName = try gateway.send("PUT", "Person(4)/firstName", json: ["lastName": "x"])
        #expect(otherName.status == 400)
        #expect(try gateway.tableContents() == before)
    }

    @Test(arguments: TestGateway.engines) func bindingsInAnUpdateRelink(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        #expect(try gateway.send("MERGE", "PersonCar(1)", json: ["Car": ["__metadata": ["uri": "Car(9)"]]]).status == 204)
        #expect(try gateway.entity("PersonCar(1)/Car")["carID"] as? Int == 9)
        #expect(try gateway.send("PUT", "PersonCar(1)", json: ["createStamp": Self.stamp, "Person": ["__metadata": ["uri": gateway.root + "Person(5)"]]]).status == 204)
        #expect(try gateway.entity("PersonCar(1)/Person")["personID"] as? Int == 5)
        #expect(try gateway.entity("PersonCar(1)/Car")["carID"] as? Int == 9, "a PUT keeps the links it does not mention")

        let before = try gateway.tableContents()
        let null = try gateway.send("MERGE", "PersonCar(1)", json: ["Car": NSNull()])
        #expect(null.status == 400)
        #expect(try null.errorMessage().contains("FK_PersonCar_Car"))
        let inline = try gateway.send("MERGE", "PersonCar(1)", json: ["Car": ["make": "New", "model": "One", "createStamp": Self.stamp]])
        #expect(inline.status == 400)
        #expect(try inline.errorMessage().contains("'Car'"))
        let nowhere = try gateway.send("MERGE", "PersonCar(1)", json: ["Car": ["__metadata": ["uri": "Car(999)"]]])
        #expect(nowhere.status == 400)
        #expect(try nowhere.errorMessage().contains("FK_PersonCar_Car"))
        let wrongType = try gateway.send("MERGE", "PersonCar(1)", json: ["Car": ["__metadata": ["uri": "Person(1)"]]])
        #expect(wrongType.status == 400)
        #expect(try gateway.tableContents() == before)
    }

    // MARK: Delete

    @Test(arguments: TestGateway.engines) func deleteAnEntityOfEverySet(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let car = try gateway.send("POST", "Car", json: ["make": "Mini", "model": "Cooper", "createStamp": Self.stamp])
        let person = try gateway.send("POST", "Person", json: ["firstName": "Del", "lastName": "Ete", "createDate": Self.stamp])
        let maintenance = try gateway.send("POST", "Maintenance", json: ["description": "Wipers", "category": "Body", "laborHours": 0, "standardPrice": 5])
        let personCar = try gateway.send("POST", "PersonCar", json: [
            "createStamp": Self.stamp, "Person": ["__metadata": ["uri": "Person(61)"]], "Car": ["__metadata": ["uri": "Car(91)"]],
        ])
        let record = try gateway.send("POST", "PersonCarMaintenance", json: [
            "serviceDate": Self.stamp, "mileage": 1, "cost": 1, "createStamp": Self.stamp,
            "PersonCar": ["__metadata": ["uri": "PersonCar(107)"]], "Maintenance": ["__metadata": ["uri": "Maintenance(26)"]],
        ])
        for created in [car, person, maintenance, personCar, record] { #expect(created.status == 201, "\(created.text)") }

        // Dependents first: each principal is free once its dependents are gone.
        for path in ["PersonCarMaintenance(259)", "PersonCar(107)", "Maintenance(26)", "Person(61)", "Car(91)"] {
            let response = try gateway.send("DELETE", path, body: [], headers: ["Content-Type": ""])
            #expect(response.status == 204, "DELETE \(path): \(response.text)")
            #expect(response.header("DataServiceVersion") == "1.0;")
            #expect(try gateway.get(path).status == 404)
            #expect(try gateway.send("DELETE", path, body: [], headers: ["Content-Type": ""]).status == 404)
        }
        // A seeded leaf entity.
        #expect(try gateway.send("DELETE", "PersonCarMaintenance(1)", body: [], headers: ["Content-Type": ""]).status == 204)
        #expect(try gateway.rowCount("PersonCarMaintenance") == 257)
        // A deleted key is never handed out again (AUTOINCREMENT).
        let next = try gateway.send("POST", "Car", json: ["make": "Next", "model": "One", "createStamp": Self.stamp])
        #expect(next.header("Location") == gateway.root + "Car(92)")
    }

    @Test(arguments: TestGateway.engines) func deletingAnEntityOthersReferToIsAConflictNamingTheRelationship(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try gateway.tableContents()
        let cases = [
            ("Person(1)", "FK_PersonCar_Person"), ("Car(2)", "FK_PersonCar_Car"),
            ("PersonCar(10)", "FK_PersonCarMaintenance_PersonCar"), ("Maintenance(1)", "FK_PersonCarMaintenance_Maintenance"),
        ]
        for (path, relationship) in cases {
            let response = try gateway.send("DELETE", path, body: [], headers: ["Content-Type": ""])
            #expect(response.status == 409, "DELETE \(path)")
            let message = try response.errorMessage()
            #expect(message.contains(relationship) && message.contains(path), "\(message)")
        }
        #expect(try gateway.tableContents() == before)
        #expect(try gateway.send("DELETE", "Person", body: [], headers: ["Content-Type": ""]).status == 405)
        #expect(try gateway.send("PUT", "Person", json: [:]).status == 405)
        #expect(try gateway.send("POST", "Person(1)", json: [:]).status == 405)
        #expect(try gateway.send("POST", "Person/$count", json: [:]).status == 405)
    }
}
