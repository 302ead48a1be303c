import Foundation
import Testing

/// An entity's writer reserves room once for everything of bounded size in it (its URI's
/// copies in deferred links among them), commits before text it has to escape or long text,
/// and reserves again after. Entities whose parts outgrow the writer's first allocation, and
/// whose URIs are long, must come out whole, in every place they are written from (debug
/// builds, which the tests are, stop at a write beyond the room).
@Suite struct EntityRoomTests {
    let gateway: TestGateway
    init() throws {
        gateway = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                  seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
    }

    private static func uri(_ entity: [String: Any]) -> String? {
        (entity["__metadata"] as? [String: Any])?["uri"] as? String
    }

    private static func deferred(_ entity: [String: Any], _ navigation: String) -> String? {
        ((entity[navigation] as? [String: Any])?["__deferred"] as? [String: Any])?["uri"] as? String
    }

    /// 40,000 bytes of text with escapes, beyond the 8 KiB an entity's response starts with:
    /// the buffer moves between the properties and the deferred link that copies the URI.
    @Test func longTextBeforeADeferredLink() throws {
        let text = String(repeating: "a\"b\\c\n€ ", count: 4000)
        let created = try gateway.send("POST", "Notes", json: ["ItemId": "1", "Line": 7, "Text": text])
        #expect(created.status == 201, "\(created.text.prefix(300))")

        let note = try gateway.entity("Notes(ItemId=1L,Line=7)")
        #expect(note["Text"] as? String == text)
        #expect(Self.uri(note) == gateway.root + "Notes(ItemId=1L,Line=7)")
        #expect(Self.deferred(note, "Item") == gateway.root + "Notes(ItemId=1L,Line=7)/Item")

        // In a collection, and expanded in the middle of another entity's deferred links.
        let notes = try gateway.get("Notes?$filter=ItemId eq 1L").d() as! [[String: Any]]
        let inCollection = notes.first { $0["Line"] as? Int == 7 }
        #expect(inCollection?["Text"] as? String == text)
        #expect(inCollection.flatMap { Self.deferred($0, "Item") } == gateway.root + "Notes(ItemId=1L,Line=7)/Item")
        let item = try gateway.entity("Items(1L)?$expand=Notes")
        // A version 1.0 response (nothing here needs 2.0) holds an expanded collection bare.
        let expanded = item["Notes"] as? [[String: Any]]
        #expect(expanded?.first { $0["Line"] as? Int == 7 }?["Text"] as? String == text)
        #expect(Self.deferred(item, "Warehouse") == gateway.root + "Items(1L)/Warehouse")
    }

    /// A string key of the longest the schema allows, every character of it escaped in the URI
    /// (`'` doubled, `/` percent-encoded): the URI is copied into the deferred link, and room
    /// for it must be reserved beside everything else.
    @Test func longEscapedKeyInTheURIAndItsDeferredLink() throws {
        let region = String(repeating: "/'", count: 10)
        let created = try gateway.send("POST", "Warehouses", json: ["Region": region, "Code": 9, "Name": "Slashes"])
        #expect(created.status == 201, "\(created.text.prefix(300))")

        let address = "Warehouses(Region='" + String(repeating: "%2F''", count: 10) + "',Code=9)"
        let warehouse = try gateway.entity(address)
        #expect(warehouse["Region"] as? String == region)
        #expect(Self.uri(warehouse) == gateway.root + address)
        #expect(Self.deferred(warehouse, "Items") == gateway.root + address + "/Items")

        let all = try gateway.get("Warehouses").d() as! [[String: Any]]
        let listed = all.first { $0["Code"] as? Int == 9 }
        #expect(listed.flatMap { Self.deferred($0, "Items") } == gateway.root + address + "/Items")
    }
}
