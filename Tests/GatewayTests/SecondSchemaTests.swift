import CSDL
import EDM
import Foundation
import Testing

/// A schema that shares nothing with the car dealer's is served all the same.
@Suite struct SecondSchemaTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway {
        let gateway = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                  seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        return gateway
    }

    @Test(arguments: TestGateway.engines) func everySimpleTypeInVerboseJSON(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let item = try gateway.get("Items(1L)").d() as! [String: Any]
        #expect((item["__metadata"] as? [String: Any])?["type"] as? String == "Inventory.Model.Item")
        #expect((item["__metadata"] as? [String: Any])?["uri"] as? String == gateway.root + "Items(1L)")
        #expect(item["Photo"] as? String == "AAEC/w==")
        #expect(item["InStock"] as? Bool == true)
        #expect(item["Shelf"] as? Int == 200)
        #expect(item["Arrived"] as? String == "/Date(1257008908440)/")
        #expect(item["Audited"] as? String == "/Date(1257071400000+0060)/", "clock time at the offset in milliseconds, offset in minutes")
        #expect(item["Price"] as? String == "12.345")
        #expect(item["Weight"] as? Double == 0.5)
        #expect(item["Ratio"] as? Double == 0.25)
        #expect(item["Serial"] as? String == "c9a4b6e2-1f0d-4c53-9a77-0123456789ab")
        #expect(item["Small"] as? Int == -300)
        #expect(item["Count"] as? Int == 70000)
        #expect(item["Big"] as? String == "9007199254740993", "Int64 is a string and keeps every digit")
        #expect(item["Tiny"] as? Int == -5)
        #expect(item["PickTime"] as? String == "PT13H20M")
        let nulls = try gateway.get("Items(2L)").d() as! [String: Any]
        #expect(nulls["Photo"] is NSNull && nulls["Price"] is NSNull && nulls["PickTime"] is NSNull)
        #expect(try gateway.get("Items(4)").status == 200, "an Int64 key literal may omit the L")
    }

    @Test(arguments: TestGateway.engines) func compositeKeysAddressAndLink(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let warehouse = try gateway.get("Warehouses(Region='north',Code=1)").d() as! [String: Any]
        #expect(warehouse["Name"] as? String == "North One", "store:Column maps Name to display_name")
        let uri = (warehouse["__metadata"] as? [String: Any])?["uri"] as? String
        #expect(uri == gateway.root + "Warehouses(Region='north',Code=1)")
        #expect(try gateway.get("Warehouses(Code=1,Region='north')").status == 200, "named key values in any order")
        #expect(try gateway.get("Warehouses('north')").status == 400)

        let items = try gateway.get("Warehouses(Region='north',Code=1)/Items").d() as! [[String: Any]]
        #expect(items.map { $0["Label"] as! String } == ["Bolt", "Nut"])
        let back = try gateway.get("Items(3L)/Warehouse").d() as! [String: Any]
        #expect(back["Region"] as? String == "o'hare / west")
        let escapedURI = (back["__metadata"] as? [String: Any])?["uri"] as? String
        #expect(escapedURI == gateway.root + "Warehouses(Region='o''hare%20%2F%20west',Code=1)")
        // The URI the gateway wrote addresses the entity.
        let relative = String(escapedURI!.dropFirst(gateway.root.count))
        #expect(try (gateway.get(relative).d() as! [String: Any])["Name"] as? String == "Quoted & slashed")

        let note = try gateway.get("Notes(ItemId=1L,Line=2)").d() as! [String: Any]
        #expect(note["Text"] as? String == "second")
        #expect(note["ItemId"] as? String == "1", "an exposed foreign key is an ordinary property")
    }

    @Test(arguments: TestGateway.engines) func expandOverCompositeAndOptionalKeys(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let warehouses = try gateway.get("Warehouses?$expand=Items/Notes").d() as! [[String: Any]]
        #expect(warehouses.count == 3)
        let north1 = warehouses.first { $0["Region"] as? String == "north" && $0["Code"] as? Int == 1 }
        let items = north1?["Items"] as? [[String: Any]]
        #expect(items?.count == 2)
        #expect((items?.first?["Notes"] as? [[String: Any]])?.count == 2)
        // An item with no warehouse expands to null.
        let orphan = try gateway.get("Items(4L)?$expand=Warehouse").d() as! [String: Any]
        #expect(orphan["Warehouse"] is NSNull)
    }

    @Test(arguments: TestGateway.engines) func schemaPageSizeCutsWithANextLink(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        var labels: [String] = []
        var target = "Items"
        var pages = 0
        while true {
            let response = try gateway.get(target)
            #expect(response.status == 200)
            let d = try response.d()
            pages += 1
            if let object = d as? [String: Any] {
                labels += (object["results"] as! [[String: Any]]).map { $0["Label"] as! String }
                #expect(response.header("DataServiceVersion") == "2.0;", "a page cut by the server is a 2.0 response")
                guard let next = object["__next"] as? String else { break }
                #expect(next.hasPrefix(gateway.root))
                target = String(next.dropFirst(gateway.root.count))
            } else {
                labels += (d as! [[String: Any]]).map { $0["Label"] as! String }
                break
            }
            #expect(pages < 10)
        }
        #expect(labels == ["Bolt", "Nut", "Washer", "Orphan", "Gear"])
        #expect(pages == 3)
    }

    @Test(arguments: TestGateway.engines) func metadataDescribesTheSecondSchema(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.get("$metadata", accept: "application/xml")
        let served = try ModelLoader.load(CSDLReader.read(data: Data(response.body)))
        #expect(served.entitySets.map(\.name) == ["Warehouses", "Items", "Notes"])
        let item = try #require(served.entityType(qualifiedName: "Inventory.Model.Item"))
        #expect(item.properties.map(\.type) == gateway.model.entityType(qualifiedName: "Inventory.Model.Item")!.properties.map(\.type))
        #expect(served.associations.first { $0.name == "ItemNotes" }?.foreignKey.cascadesOnDelete == true)
        #expect(response.text.contains("<ReferentialConstraint>"))
    }
}
