import Testing

/// Browser front ends on another origin: CORS headers for allowed origins only, and preflight.
@Suite struct CrossOriginTests {
    @Test func allowedOriginsGetCORSHeaders() throws {
        let gateway = try TestGateway { $0.allowedOrigins = ["http://app.example"] }
        let allowed = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://app.example"])
        #expect(allowed.status == 200)
        #expect(allowed.header("Access-Control-Allow-Origin") == "http://app.example")
        #expect(allowed.header("Access-Control-Expose-Headers")?.contains("ETag") == true)
        let other = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://evil.example"])
        #expect(other.status == 200)
        #expect(other.header("Access-Control-Allow-Origin") == nil)

        let preflight = try gateway.request("OPTIONS", "Person(1)", headers: [
            "Origin": "http://app.example", "Access-Control-Request-Method": "MERGE",
            "Access-Control-Request-Headers": "content-type, if-match, maxdataserviceversion",
        ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Allow-Methods")?.contains("MERGE") == true)
        #expect(preflight.header("Access-Control-Allow-Headers") == "content-type, if-match, maxdataserviceversion")
        // Errors carry the headers too, so the page can read the OData error.
        let missing = try gateway.request("GET", "Person(999)", headers: ["Accept": "application/json", "Origin": "http://app.example"])
        #expect(missing.status == 404)
        #expect(missing.header("Access-Control-Allow-Origin") == "http://app.example")
    }

    @Test func withoutConfigurationThereAreNoCORSHeaders() throws {
        let gateway = try TestGateway()
        let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://app.example"])
        #expect(response.header("Access-Control-Allow-Origin") == nil)
        let options = try gateway.request("OPTIONS", "Person")
        #expect(options.status == 204)
        #expect(options.header("Allow")?.contains("MERGE") == true)
        #expect(options.header("Access-Control-Allow-Methods") == nil)
    }

    @Test func credentialsAreAllowedForListedOriginsAndPreflightsAreCached() throws {
        let gateway = try TestGateway {
            $0.allowedOrigins = ["http://app.example"]
            $0.allowsCredentials = true
        }
        let allowed = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://app.example"])
        #expect(allowed.header("Access-Control-Allow-Origin") == "http://app.example")
        #expect(allowed.header("Access-Control-Allow-Credentials") == "true")
        #expect(allowed.header("Vary") == "Accept, Origin")
        let other = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://evil.example"])
        #expect(other.header("Access-Control-Allow-Credentials") == nil)
        #expect(other.header("Vary") == "Accept, Origin", "the answer depends on Origin even when it is refused")
        let preflight = try gateway.request("OPTIONS", "Person(1)", headers: [
            "Origin": "http://app.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "authorization",
        ])
        #expect(preflight.status == 204)
        #expect(preflight.header("Access-Control-Max-Age") == "600")
        #expect(preflight.header("Access-Control-Allow-Credentials") == "true")
        #expect(preflight.header("Access-Control-Allow-Origin") == "http://app.example")
    }

    @Test func anyOriginNeverGetsCredentials() throws {
        let gateway = try TestGateway {
            $0.allowedOrigins = ["*"]
            $0.allowsCredentials = true
        }
        let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Origin": "http://app.example"])
        #expect(response.header("Access-Control-Allow-Origin") == nil)
        #expect(response.header("Access-Control-Allow-Credentials") == nil)
    }
}
