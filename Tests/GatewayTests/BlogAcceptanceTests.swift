import Foundation
import Testing

/// The blog's request must give the blog's response, compared as JSON after replacing the
/// service root (shared/fixtures/README.md).
@Suite struct BlogAcceptanceTests {
    static let fixture = TestGateway.repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/fixtures/blog-person1-expand.json")
    static let blogRoot = "http://192.168.1.112/EDMTest/CarDealer.svc/"

    @Test func personOneWithCarsMatchesTheBlog() throws {
        let gateway = try TestGateway()
        let response = try gateway.get("Person(1)?$expand=PersonCar,PersonCar/Car")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(response.header("DataServiceVersion") == "1.0;")

        let expectedText = try String(contentsOf: Self.fixture, encoding: .utf8).replacingOccurrences(of: Self.blogRoot, with: gateway.root)
        let expected = try JSONSerialization.jsonObject(with: Data(expectedText.utf8)) as! NSDictionary
        let actual = try response.json() as! NSDictionary
        #expect(actual == expected, "response: \(response.text)")
        // The wire form escapes the slashes of dates, as WCF Data Services does.
        #expect(response.text.contains(#""createDate":"\/Date(1257008908440)\/""#))
    }

    @Test func bareCollectionsInVersionOneAndResultsInVersionTwo() throws {
        let gateway = try TestGateway()
        let v1 = try gateway.get("Person(1)?$expand=PersonCar")
        let v1PersonCar = try (v1.d() as! [String: Any])["PersonCar"]
        #expect(v1PersonCar is [Any])

        let v2 = try gateway.get("Person(1)?$expand=PersonCar&$select=firstName,PersonCar")
        #expect(v2.header("DataServiceVersion") == "2.0;")
        let v2PersonCar = try (v2.d() as! [String: Any])["PersonCar"] as? [String: Any]
        #expect((v2PersonCar?["results"] as? [Any])?.count == 2)
    }
}
