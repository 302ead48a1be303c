import Foundation
import Testing

/// `$links`: adding (POST, to-many), setting (PUT, to-one) and removing (DELETE) the links of
/// navigation properties, with required relationships that refuse to be emptied.
@Suite struct WriteLinksTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    func linkURIs(_ gateway: TestGateway, _ target: String) throws -> [String] {
        let d = try gateway.get(target).d()
        if let links = d as? [[String: Any]] { return links.compactMap { $0["uri"] as? String } }
        if let link = d as? [String: Any], let uri = link["uri"] as? String { return [uri] }
        return []
    }

    @Test(arguments: TestGateway.engines) func addALinkToAToManyNavigation(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let bobsCars = try linkURIs(gateway, "Person(1)/$links/PersonCar")
        #expect(bobsCars.contains(gateway.root + "PersonCar(1)"))
        let response = try gateway.send("POST", "Person(2)/$links/PersonCar", json: ["uri": gateway.root + "PersonCar(1)"])
        #expect(response.status == 204, "\(response.text)")
        #expect(response.header("DataServiceVersion") == "1.0;")
        #expect(try linkURIs(gateway, "Person(2)/$links/PersonCar").contains(gateway.root + "PersonCar(1)"))
        #expect(try linkURIs(gateway, "Person(1)/$links/PersonCar").count == bobsCars.count - 1, "a to-one end moves; it is not copied")
        #expect(try linkURIs(gateway, "PersonCar(1)/$links/Person") == [gateway.root + "Person(2)"])

        // Relative URIs, and the service root's path, name the target as well.
        #expect(try gateway.send("POST", "Maintenance(3)/$links/PersonCarMaintenance", json: ["uri": "PersonCarMaintenance(1)"]).status == 204)
        #expect(try gateway.send("POST", "Car(10)/$links/PersonCar", json: ["uri": "/CarDealer.svc/PersonCar(3)"]).status == 204)
        #expect(try linkURIs(gateway, "PersonCar(3)/$links/Car") == [gateway.root + "Car(10)"])
        #expect(try linkURIs(gateway, "PersonCarMaintenance(1)/$links/Maintenance") == [gateway.root + "Maintenance(3)"])
    }

    @Test(arguments: TestGateway.engines) func replaceAToOneLink(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.send("PUT", "PersonCar(2)/$links/Car", json: ["uri": "Car(7)"])
        #expect(response.status == 204, "\(response.text)")
        #expect(try linkURIs(gateway, "PersonCar(2)/$links/Car") == [gateway.root + "Car(7)"])
        #expect(try gateway.send("PUT", "PersonCarMaintenance(5)/$links/PersonCar", json: ["uri": "PersonCar(2)"]).status == 204)
        #expect(try gateway.entity("PersonCarMaintenance(5)/PersonCar")["personCarID"] as? Int == 2)
        // The wrapped form some clients send is read too.
        #expect(try gateway.send("PUT", "PersonCar(2)/$links/Person", json: ["d": ["uri": "Person(9)"]]).status == 204)
        #expect(try linkURIs(gateway, "PersonCar(2)/$links/Person") == [gateway.root + "Person(9)"])
    }

    @Test(arguments: TestGateway.engines) func requiredRelationshipsCannotBeUnlinked(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try gateway.tableContents()
        let fromPrincipal = try gateway.send("DELETE", "Person(1)/$links/PersonCar(1)", body: [], headers: ["Content-Type": ""])
        #expect(fromPrincipal.status == 400)
        let message = try fromPrincipal.errorMessage()
        #expect(message.contains("FK_PersonCar_Person") && message.contains("PersonCar(1)"), "\(message)")
        let fromDependent = try gateway.send("DELETE", "PersonCar(1)/$links/Car", body: [], headers: ["Content-Type": ""])
        #expect(fromDependent.status == 400)
        #expect(try fromDependent.errorMessage().contains("FK_PersonCar_Car"))
        #expect(try gateway.tableContents() == before)
    }

    @Test(arguments: TestGateway.engines) func wrongUsesAreRefusedAndChangeNothing(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try gateway.tableContents()
        let cases: [(String, String, [String: Any]?, Int)] = [
            ("POST", "PersonCar(1)/$links/Car", ["uri": "Car(3)"], 405),          // to-one: PUT, not POST
            ("PUT", "Person(1)/$links/PersonCar", ["uri": "PersonCar(3)"], 405),   // to-many: POST, not PUT
            ("DELETE", "Person(1)/$links/PersonCar", nil, 400),                     // which one?
            ("POST", "Person(1)/$links/PersonCar(3)", ["uri": "PersonCar(3)"], 400),
            ("POST", "Person(1)/$links/PersonCar", ["uri": "Car(3)"], 400),         // wrong type
            ("POST", "Person(1)/$links/PersonCar", ["uri": "PersonCar"], 400),      // not one entity
            ("POST", "Person(1)/$links/PersonCar", ["href": "PersonCar(3)"], 400),
            ("POST", "Person(1)/$links/PersonCar", ["uri": 3], 400),
            ("POST", "Person(999)/$links/PersonCar", ["uri": "PersonCar(3)"], 404),
            ("DELETE", "Person(1)/$links/PersonCar(3)", nil, 404),                  // PersonCar(3) is James's
            ("POST", "Person(1)/$links/PersonCar", ["uri": "http://elsewhere/Other.svc/PersonCar(3)"], 400),
        ]
        for (method, target, body, status) in cases {
            let response = body.map { try? gateway.send(method, target, json: $0) }
                ?? (try? gateway.send(method, target, body: [], headers: ["Content-Type": ""]))
            #expect(response?.status == status, "\(method) \(target): \(response?.text ?? "")")
        }
        #expect(try gateway.tableContents() == before)
    }

    @Test(arguments: TestGateway.engines) func optionalRelationshipsUnlinkAndRelinkInTheSecondSchema(engine: TestGateway.Engine) throws {
        let inventory = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                        seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        let north1 = "Warehouses(Region='north',Code=1)"
        #expect(try inventory.send("DELETE", "Items(1L)/$links/Warehouse", body: [], headers: ["Content-Type": ""]).status == 204)
        #expect(try inventory.get("Items(1L)/$links/Warehouse").d() is NSNull)
        let database = try inventory.openConnection()
        let sql = database.dialect
        #expect(try database.rows("SELECT \(sql.quote("wh_region")), \(sql.quote("wh_code")) FROM \(sql.quote("Item")) WHERE \(sql.quote("Id")) = 1")
                == [[.null, .null]])

        #expect(try inventory.send("PUT", "Items(1L)/$links/Warehouse", json: ["uri": inventory.root + "Warehouses(Region='north',Code=2)"]).status == 204)
        #expect(try inventory.entity("Items(1L)/Warehouse")["Name"] as? String == "North Two")

        #expect(try inventory.send("POST", "\(north1)/$links/Items", json: ["uri": "Items(4L)"]).status == 204)
        #expect(try inventory.entity("Items(4L)/Warehouse")["Name"] as? String == "North One")
        #expect(try inventory.send("DELETE", "\(north1)/$links/Items(4L)", body: [], headers: ["Content-Type": ""]).status == 204)
        #expect(try inventory.get("Items(4L)/$links/Warehouse").d() is NSNull)

        // A foreign key that is part of the dependent's key is its identity: it cannot move.
        let before = try inventory.tableContents()
        let move = try inventory.send("POST", "Items(2L)/$links/Notes", json: ["uri": "Notes(ItemId=1L,Line=1)"])
        #expect(move.status == 400)
        #expect(try move.errorMessage().contains("ItemNotes"))
        #expect(try inventory.tableContents() == before)
    }
}
