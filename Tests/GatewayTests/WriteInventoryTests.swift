import Foundation
import Testing

/// Writes against the second schema: composite keys, a composite hidden foreign key, an exposed
/// foreign key that is part of a key, a cascading delete, and a value of every simple type.
@Suite struct WriteInventoryTests {
    let gateway: TestGateway
    init() throws {
        gateway = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                  seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
    }

    @Test func everySimpleTypeRoundTrips() throws {
        let response = try gateway.send("POST", "Items", json: [
            "Label": "Spring", "Photo": "AQID", "InStock": true, "Shelf": 255, "Arrived": "/Date(1257008908440)/",
            "Audited": "2009-11-01T10:30:00+01:00", "Price": "123456789.125", "Weight": 1.5e300, "Ratio": 0.125,
            "Serial": "C9A4B6E2-1F0D-4C53-9A77-0123456789AB", "Small": -32768, "Count": 2147483647,
            "Big": "9223372036854775807", "Tiny": -128, "PickTime": "PT23H59M59.5S",
            "Warehouse": ["__metadata": ["uri": "Warehouses(Region='north',Code=2)"]],
        ])
        #expect(response.status == 201, "\(response.text)")
        #expect(response.header("Location") == gateway.root + "Items(6L)")
        let item = try gateway.entity("Items(6L)")
        #expect(item["Photo"] as? String == "AQID")
        #expect(item["InStock"] as? Bool == true)
        #expect(item["Shelf"] as? Int == 255)
        #expect(item["Arrived"] as? String == "/Date(1257008908440)/")
        #expect(item["Audited"] as? String == "/Date(1257071400000+0060)/", "the clock time at the offset written, and the offset")
        #expect(item["Price"] as? String == "123456789.125")
        #expect(item["Weight"] as? Double == 1.5e300)
        #expect(item["Ratio"] as? Double == 0.125)
        #expect(item["Serial"] as? String == "c9a4b6e2-1f0d-4c53-9a77-0123456789ab")
        #expect(item["Small"] as? Int == -32768)
        #expect(item["Count"] as? Int == 2147483647)
        #expect(item["Big"] as? String == "9223372036854775807", "Int64 keeps every digit")
        #expect(item["Tiny"] as? Int == -128)
        #expect(item["PickTime"] as? String == "PT23H59M59.5S")
        #expect(try gateway.entity("Items(6L)/Warehouse")["Code"] as? Int == 2)

        // Out of each type's range, or of the wrong form: 400 naming the property.
        let before = try gateway.tableContents()
        let bad: [(String, Any)] = [
            ("Shelf", 256), ("Tiny", 128), ("Small", 40000), ("Big", "9223372036854775808"), ("Price", "1e10"),
            ("Serial", "not-a-guid"), ("Photo", "###"), ("PickTime", "PT25H"), ("Audited", "2009-13-01T00:00:00Z"),
            ("InStock", "yes"), ("Ratio", 1e39), ("Arrived", "/Date(x)/"),
        ]
        for (name, value) in bad {
            let refused = try gateway.send("MERGE", "Items(6L)", json: [name: value])
            #expect(refused.status == 400, "\(name)")
            #expect(try refused.errorMessage().contains("'\(name)'"), "\(name): \(refused.text)")
        }
        #expect(try gateway.tableContents() == before)
    }

    @Test func compositeKeysCreateAddressAndConflict() throws {
        let created = try gateway.send("POST", "Warehouses", json: ["Region": "south", "Code": 7, "Name": "South Seven"])
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location") == gateway.root + "Warehouses(Region='south',Code=7)")
        #expect(try gateway.rowCount("warehouses") == 4)
        #expect(try gateway.openDatabase().rows("SELECT display_name FROM warehouses WHERE Region = 'south'") == [[.text("South Seven")]])

        let before = try gateway.tableContents()
        let duplicate = try gateway.send("POST", "Warehouses", json: ["Region": "south", "Code": 7, "Name": "Again"])
        #expect(duplicate.status == 409)
        #expect(try duplicate.errorMessage().contains("already exists"))
        let keyless = try gateway.send("POST", "Warehouses", json: ["Region": "south", "Name": "No code"])
        #expect(keyless.status == 400)
        #expect(try keyless.errorMessage().contains("'Code'"))
        let conflicting = try gateway.send("PUT", "Warehouses(Region='south',Code=7)", json: ["Region": "west", "Code": 7, "Name": "x"])
        #expect(conflicting.status == 400)
        #expect(try conflicting.errorMessage().contains("'Region'"))
        #expect(try gateway.tableContents() == before)

        #expect(try gateway.send("MERGE", "Warehouses(Code=7,Region='south')", json: ["Name": "Renamed"]).status == 204)
        #expect(try gateway.entity("Warehouses(Region='south',Code=7)")["Name"] as? String == "Renamed")
        #expect(try gateway.send("DELETE", "Warehouses(Region='south',Code=7)", body: [], headers: ["Content-Type": ""]).status == 204)
        #expect(try gateway.rowCount("warehouses") == 3)
    }

    @Test func exposedForeignKeyInACompositeKey() throws {
        // Through the parent: the key part comes from the URI.
        let viaParent = try gateway.send("POST", "Items(2L)/Notes", json: ["Line": 1, "Text": "nut note"])
        #expect(viaParent.status == 201, "\(viaParent.text)")
        #expect(viaParent.header("Location") == gateway.root + "Notes(ItemId=2L,Line=1)")
        // Directly: the exposed property, or a binding.
        #expect(try gateway.send("POST", "Notes", json: ["ItemId": "5", "Line": 1, "Text": "gear note"]).status == 201)
        #expect(try gateway.send("POST", "Notes", json: ["Line": 2, "Text": "bound", "Item": ["__metadata": ["uri": "Items(5L)"]]]).status == 201)
        #expect(try gateway.rowCount("Note") == 6)

        let before = try gateway.tableContents()
        let nowhere = try gateway.send("POST", "Notes", json: ["ItemId": "99", "Line": 1, "Text": "orphan"])
        #expect(nowhere.status == 400)
        #expect(try nowhere.errorMessage().contains("ItemNotes"))
        let contradiction = try gateway.send("POST", "Items(2L)/Notes", json: ["ItemId": "3", "Line": 9, "Text": "which item?"])
        #expect(contradiction.status == 400)
        #expect(try contradiction.errorMessage().contains("ItemId"))
        let duplicate = try gateway.send("POST", "Items(1L)/Notes", json: ["Line": 1, "Text": "again"])
        #expect(duplicate.status == 409)
        #expect(try gateway.tableContents() == before)
    }

    @Test func deleteCascadesWhereTheSchemaSaysSo() throws {
        #expect(try gateway.rowCount("Note") == 3)
        let response = try gateway.send("DELETE", "Items(1L)", body: [], headers: ["Content-Type": ""])
        #expect(response.status == 204, "\(response.text)")
        #expect(try gateway.rowCount("Note") == 1, "Item 1's two notes went with it (OnDelete Cascade)")
        #expect(try gateway.get("Notes(ItemId=1L,Line=1)").status == 404)

        // Warehouse to Items does not cascade: a warehouse with items is a conflict.
        let before = try gateway.tableContents()
        let conflict = try gateway.send("DELETE", "Warehouses(Region='north',Code=1)", body: [], headers: ["Content-Type": ""])
        #expect(conflict.status == 409)
        #expect(try conflict.errorMessage().contains("WarehouseItems"))
        #expect(try gateway.tableContents() == before)
    }

    @Test func deepInsertThroughACompositeKeyAndReplace() throws {
        let response = try gateway.send("POST", "Warehouses", json: [
            "Region": "east", "Code": 1, "Name": "East",
            "Items": ["results": [
                ["Label": "Cog", "InStock": true, "Notes": [["Line": 1, "Text": "deep"]]],
                ["__metadata": ["uri": "Items(4L)"]],
            ]],
        ])
        #expect(response.status == 201, "\(response.text)")
        let items = try gateway.get("Warehouses(Region='east',Code=1)/Items?$expand=Notes").d() as! [[String: Any]]
        #expect(Set(items.compactMap { $0["Label"] as? String }) == ["Cog", "Orphan"])
        #expect(items.first { $0["Label"] as? String == "Cog" }.flatMap { $0["Notes"] as? [[String: Any]] }?.first?["Text"] as? String == "deep")
        #expect(try gateway.openDatabase().rows("SELECT wh_region, wh_code FROM Item WHERE Id = 6") == [[.text("east"), .integer(1)]])

        // PUT on an item: everything left out goes back to null.
        #expect(try gateway.send("PUT", "Items(1L)", json: ["Label": "Bare", "InStock": false]).status == 204)
        let bare = try gateway.entity("Items(1L)")
        #expect(bare["Photo"] is NSNull && bare["Price"] is NSNull && bare["PickTime"] is NSNull && bare["Big"] is NSNull)
        #expect(try gateway.entity("Items(1L)/Warehouse")["Name"] as? String == "North One", "the link is kept")
        #expect(try gateway.send("PUT", "Items(1L)/Photo/$value", body: [0, 1, 2, 255], headers: ["Content-Type": "application/octet-stream"]).status == 204)
        #expect(try gateway.get("Items(1L)/Photo/$value").body == [0, 1, 2, 255])
    }
}
