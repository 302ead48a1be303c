import Foundation
import Testing

/// Text holding U+0000: SQLite stores it as any other character; PostgreSQL's text cannot hold
/// it, so there it is a bad request naming the problem, and nothing is written.
@Suite struct NulTextTests {
    @Test(arguments: TestGateway.engines) func textWithNulIsStoredOrRefusedWholly(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let count = try gateway.get("Person/$count").text
        let person: [String: Any] = ["firstName": "A\u{0000}B", "lastName": "Nul", "createDate": "/Date(0)/"]
        let created = try gateway.send("POST", "Person", json: person)
        let merged = try gateway.send("MERGE", "Person(1)", json: ["lastName": "x\u{0000}"])
        let filtered = try gateway.get(TestGateway.encodeQuery("Person?$filter=firstName eq 'A\u{0000}B'"))
        switch engine {
        case .sqlite:
            #expect(created.status == 201, "\(created.text.prefix(300))")
            #expect(merged.status == 204, "\(merged.text.prefix(300))")
            #expect(filtered.status == 200)
            #expect(try ExpressionHTTPTests.page(filtered).entities.map { $0["firstName"] as? String } == ["A\u{0000}B"])
        case .postgresql:
            for response in [created, merged, filtered] {
                #expect(response.status == 400, "\(response.text.prefix(300))")
                #expect(try response.errorMessage().contains("U+0000"), "\(response.text.prefix(300))")
            }
            #expect(try gateway.get("Person/$count").text == count, "nothing written")
            #expect(try gateway.entity("Person(1)")["lastName"] as? String != "x\u{0000}")
        }
    }
}
