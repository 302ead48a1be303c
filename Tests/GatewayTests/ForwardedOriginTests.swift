import Foundation
import Testing

/// Behind a reverse proxy (`--trust-forwarded`): the URIs the service writes take the scheme
/// and host the client used, from `Forwarded` or `X-Forwarded-*`, so that a client following
/// `__next` or an entity's URI stays on the scheme it started with.
@Suite struct ForwardedOriginTests {
    private func metadataURI(_ gateway: TestGateway, _ headers: [String: String]) throws -> String? {
        let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json"].merging(headers) { $1 })
        #expect(response.status == 200, "\(response.text)")
        let entity = try response.d() as? [String: Any]
        return (entity?["__metadata"] as? [String: Any])?["uri"] as? String
    }

    @Test func forwardedSchemeAndHostMakeTheURIs() throws {
        let gateway = try TestGateway {
            $0.trustsForwardedHeaders = true
            $0.defaultPageSize = 10
        }
        #expect(try metadataURI(gateway, ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "cars.example"])
            == "https://cars.example/CarDealer.svc/Person(1)")
        #expect(try metadataURI(gateway, ["X-Forwarded-Proto": "https"]) == "https://127.0.0.1:\(gateway.port)/CarDealer.svc/Person(1)")
        #expect(try metadataURI(gateway, ["Forwarded": "for=10.0.0.1;proto=https;host=\"shop.example:8443\", for=10.0.0.2;proto=http"])
            == "https://shop.example:8443/CarDealer.svc/Person(1)")
        // The same thread's next request without them is not answered with the kept root.
        #expect(try metadataURI(gateway, [:]) == "http://127.0.0.1:\(gateway.port)/CarDealer.svc/Person(1)")
        let page = try gateway.request("GET", "Person", headers: ["Accept": "application/json", "X-Forwarded-Proto": "https",
                                                                  "X-Forwarded-Host": "cars.example"])
        let next = (try page.d() as? [String: Any])?["__next"] as? String
        #expect(next?.hasPrefix("https://cars.example/CarDealer.svc/Person?") == true, "\(next ?? "no __next")")
        let bad = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "X-Forwarded-Proto": "gopher"])
        #expect(bad.status == 400)
        let badHost = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "X-Forwarded-Host": "a b/c"])
        #expect(badHost.status == 400)
    }

    @Test func withoutTheOptionForwardedFieldsAreIgnored() throws {
        let gateway = try TestGateway()
        #expect(try metadataURI(gateway, ["X-Forwarded-Proto": "https", "X-Forwarded-Host": "cars.example"])
            == "http://127.0.0.1:\(gateway.port)/CarDealer.svc/Person(1)")
    }
}
