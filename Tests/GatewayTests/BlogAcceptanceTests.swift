import Foundation
import Testing

/// The blog's request must give the blog's response, compared as JSON after replacing the
/// service root (Fixtures/Blog/README.md).
@Suite struct BlogAcceptanceTests {
    static let fixture = TestGateway.fixtures.appendingPathComponent("Blog/blog-person1-expand.json")
    static let blogRoot = "http://192.168.1.112/EDMTest/CarDealer.svc/"

    @Test(arguments: TestGateway.engines) func personOneWithCarsMatchesTheBlog(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let response = try gateway.get("Person(1)?$expand=PersonCar,PersonCar/Car")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(response.header("DataServiceVersion") == "1.0;")

        let expectedText = try String(contentsOf: Self.fixture, encoding: .utf8).replacingOccurrences(of: Self.blogRoot, with: gateway.root)
        let expected = try JSONSerialization.jsonObject(with: Data(expectedText.utf8)) as! NSDictionary
        // The fixture rules allow one addition: an `etag` inside `__metadata`.
        let actual = Self.removingETags(try response.json()) as! NSDictionary
        #expect(actual == expected, "response: \(response.text)")
        let metadata = (try response.d() as? [String: Any])?["__metadata"] as? [String: Any]
        // The entity's ETag is in __metadata; the header has none, as the person's tag cannot
        // vouch for the cars expanded into the answer (`RepresentationTag`).
        #expect(response.header("ETag") == nil)
        #expect(metadata?["etag"] as? String == (try gateway.get("Person(1)").header("ETag")))
        // The wire form escapes the slashes of dates, as WCF Data Services does.
        #expect(response.text.contains(#""createDate":"\/Date(1257008908440)\/""#))
    }

    /// The JSON value with every `etag` member of a `__metadata` object removed.
    static func removingETags(_ value: Any) -> Any {
        if let array = value as? [Any] { return array.map(removingETags) }
        guard let object = value as? [String: Any] else { return value }
        var result: [String: Any] = [:]
        for (name, member) in object {
            if name == "__metadata", var metadata = member as? [String: Any] {
                metadata["etag"] = nil
                result[name] = metadata
            } else {
                result[name] = removingETags(member)
            }
        }
        return result
    }

    @Test(arguments: TestGateway.engines) func bareCollectionsInVersionOneAndResultsInVersionTwo(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let v1 = try gateway.get("Person(1)?$expand=PersonCar")
        let v1PersonCar = try (v1.d() as! [String: Any])["PersonCar"]
        #expect(v1PersonCar is [Any])

        let v2 = try gateway.get("Person(1)?$expand=PersonCar&$select=firstName,PersonCar")
        #expect(v2.header("DataServiceVersion") == "2.0;")
        let v2PersonCar = try (v2.d() as! [String: Any])["PersonCar"] as? [String: Any]
        #expect((v2PersonCar?["results"] as? [Any])?.count == 2)
    }
}
