import Foundation
import Testing

/// A DateTimeOffset is an instant and an offset: both are kept and answered, in JSON, Atom and
/// `$value`, on both write forms, while `$filter` and `$orderby` compare the instants.
@Suite struct DateTimeOffsetTests {
    let gateway: TestGateway
    init() throws {
        gateway = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                  seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
    }

    /// Creates an item audited at `audited` and returns its key.
    private func item(_ label: String, audited: String) throws -> String {
        let response = try gateway.send("POST", "Items", json: ["Label": label, "InStock": true, "Audited": audited])
        #expect(response.status == 201, "\(response.text.prefix(300))")
        return String(try #require(response.header("Location")).dropFirst(gateway.root.count))
    }

    @Test func theOffsetIsKeptAndAnsweredInEveryForm() throws {
        // 05:06:07 at +05:30 is 1330837567000 on the clock, 1330817767000 as an instant.
        let iso = try item("iso", audited: "2012-03-04T05:06:07+05:30")
        let json = try item("json", audited: "/Date(1330837567000+0330)/")
        let west = try item("west", audited: "/Date(-3600000-0420)/")
        for target in [iso, json] {
            #expect(try gateway.entity(target)["Audited"] as? String == "/Date(1330837567000+0330)/", "\(target)")
            #expect(try gateway.get(target + "/Audited/$value").text == "2012-03-04T05:06:07+05:30")
            let atom = try gateway.get(target, accept: "application/atom+xml").text
            #expect(atom.contains(">2012-03-04T05:06:07+05:30</d:Audited>"), "\(atom)")
        }
        #expect(try gateway.entity(west)["Audited"] as? String == "/Date(-3600000-0420)/")
        #expect(try gateway.get(west + "/Audited/$value").text == "1969-12-31T23:00:00-07:00")
    }

    /// The seeder reads `/Date(ms±mmmm)/` as request bodies do: clock time at the offset.
    @Test func seedFilesReadTheJSONFormAsClientsWriteIt() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dto-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let seed = TestGateway.fixtures.appendingPathComponent("InventorySeed")
        for file in ["Warehouses.json"] {
            try FileManager.default.copyItem(at: seed.appendingPathComponent(file), to: folder.appendingPathComponent(file))
        }
        let items = #"[{"Id": 1, "Label": "Bolt", "InStock": true, "Audited": "/Date(1330837567000+0330)/"}]"#
        try Data(items.utf8).write(to: folder.appendingPathComponent("Items.json"))
        let seeded = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"), seed: folder)
        #expect(try seeded.get("Items(1L)/Audited/$value").text == "2012-03-04T05:06:07+05:30")
        let hits = try seeded.get(TestGateway.encodeQuery("Items?$filter=Audited eq datetimeoffset'2012-03-03T23:36:07Z'"))
        #expect(try ExpressionHTTPTests.page(hits).entities.count == 1)
    }

    @Test func filtersAndOrderingsCompareInstants() throws {
        let india = try item("india", audited: "2012-03-04T05:06:07+05:30")
        let utc = try item("utc", audited: "2012-03-03T23:36:07Z")
        let later = try item("later", audited: "2012-03-03T20:00:00-05:00")
        // Every page: Items are served two at a time (store:PageSize).
        func labels(_ query: String) throws -> [String] {
            var target: String? = TestGateway.encodeQuery("Items?$select=Label&" + query)
            var seen: [String] = []
            while let next = target, seen.count < 20 {
                let response = try gateway.get(next)
                #expect(response.status == 200, "\(query): \(response.text.prefix(300))")
                let page = try ExpressionHTTPTests.page(response)
                seen += page.entities.map { $0["Label"] as! String }
                target = page.next.map { String($0.dropFirst(gateway.root.count)) }
            }
            return seen
        }
        #expect(try labels("$filter=Audited eq datetimeoffset'2012-03-03T23:36:07Z'") == ["india", "utc"])
        #expect(try labels("$filter=Audited eq datetimeoffset'2012-03-04T01:06:07+01:30'") == ["india", "utc"])
        #expect(try labels("$filter=Audited gt datetimeoffset'2012-03-04T06:00:00+05:30'") == ["later"])
        let ordered = try labels("$filter=Audited ge datetimeoffset'2012-03-03T00:00:00Z'&$orderby=Audited desc,Label")
        #expect(ordered == ["later", "india", "utc"], "\(ordered)")
        #expect(try labels("$filter=hour(Audited) eq 23 and Audited ne null") == ["india", "utc"], "date parts of the instant, in UTC")
        _ = (india, utc, later)
    }

    @Test func pagesOrderedByOffsetsFollowTheInstants() throws {
        let paged = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                    seed: TestGateway.fixtures.appendingPathComponent("InventorySeed")) { $0.defaultPageSize = 1 }
        for (label, audited) in [("a", "2012-03-04T05:06:07+05:30"), ("b", "2012-03-03T23:36:06Z"), ("c", "2012-03-03T20:00:00-05:00")] {
            #expect(try paged.send("POST", "Items", json: ["Label": label, "InStock": true, "Audited": audited]).status == 201)
        }
        var target: String? = TestGateway.encodeQuery("Items?$filter=Audited ge datetimeoffset'2012-01-01T00:00:00Z'&$orderby=Audited&$select=Label")
        var seen: [String] = []
        while let next = target, seen.count < 10 {
            let page = try ExpressionHTTPTests.page(try paged.get(next))
            seen += page.entities.map { $0["Label"] as! String }
            target = page.next.map { String($0.dropFirst(paged.root.count)) }
        }
        #expect(seen == ["b", "a", "c"])
    }
}
