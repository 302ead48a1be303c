import Foundation
import RestConnection
import Testing

/// Server-driven paging, against the gateway's second test schema, whose Items set is served
/// two at a time: one page carries `__next`, and `getAll` walks every page.
@Suite(.serialized) final class RestConnectionPagingTests {
    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess(schema: TestPaths.inventorySchema, seed: TestPaths.inventorySeed)
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    @Test func onePageCarriesTheNextLink() async throws {
        let page = try #require(try await connection.get("Items").collection)
        #expect(page.shape == .resultsObject, "a paged response is 2.0")
        #expect(page.elements.count == 2)
        let next = try #require(page.nextLink)
        #expect(next.absoluteString.hasPrefix(gateway.root + "Items?"))
    }

    @Test func getAllFollowsEveryPage() async throws {
        let total = try await connection.count("Items/$count")
        let items = try await connection.getAll("Items?$expand=Notes")
        #expect(items.count == total)
        #expect(total > 2)
        #expect(Set(items.compactMap { $0["Id"]?.stringValue }).count == total, "each item exactly once")
        // Int64 keys arrive as strings; expanded collections of a 2.0 response as {"results": [...]}.
        let first = try #require(items.first { $0["Id"] == "1" })
        #expect(first["Notes"]?["results"]?.arrayValue?.count == 2)
    }

    @Test func compositeKeysAddressEntities() async throws {
        // The gateway writes this key as Region='o''hare%20%2F%20west'; ours must be the same.
        let path = "Warehouses(Region=\("o'hare / west".odataLiteral),Code=1)"
        let warehouse = try #require(try await connection.get(path).object)
        #expect(warehouse["Name"] == "Quoted & slashed")
        #expect(warehouse["__metadata"]?["uri"]?.stringValue == gateway.root + path)
    }
}
