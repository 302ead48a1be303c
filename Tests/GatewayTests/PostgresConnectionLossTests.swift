import Foundation
import ODataStore
import PostgresStore
import Testing

/// The server drops the gateway's connections (as a database restart does): the request that
/// finds its connection gone is answered 503 with Retry-After, never a crash or a 500, and the
/// next one runs on a new connection.
@Suite(PostgresTestDatabase.enabled) struct PostgresConnectionLossTests {
    @Test func aDroppedConnectionIs503ThenReestablished() throws {
        let gateway = try TestGateway(engine: .postgresql) { $0.defaultPageSize = 50 }
        let admin = try gateway.postgres!.connect()
        func dropGatewayConnections() throws {
            _ = try admin.rows("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()")
        }
        #expect(try gateway.get("Person(1)").status == 200)
        #expect(try gateway.send("MERGE", "Person(2)", json: ["firstName": "Before"]).status == 204)

        try dropGatewayConnections()
        // Each worker's reader finds its own connection gone once; the metadata needs none.
        var statuses: [Int] = []
        for _ in 0..<4 {
            let response = try gateway.get("Person(1)")
            statuses.append(response.status)
            if response.status == 503 {
                #expect(response.header("Retry-After") == "1")
                #expect(try response.errorMessage().contains("retry"))
            }
        }
        #expect(statuses.contains(503), "\(statuses)")
        #expect(statuses.allSatisfy { $0 == 200 || $0 == 503 }, "\(statuses)")
        #expect(statuses.last == 200, "\(statuses)")
        #expect(try gateway.get("$metadata", accept: "application/xml").status == 200)

        let failedWrite = try gateway.send("MERGE", "Person(2)", json: ["firstName": "During"])
        #expect(failedWrite.status == 503 && failedWrite.header("Retry-After") == "1", "\(failedWrite.status) \(failedWrite.text)")
        #expect(try gateway.send("MERGE", "Person(2)", json: ["firstName": "After"]).status == 204)
        #expect(try (gateway.get("Person(2)").d() as? [String: Any])?["firstName"] as? String == "After")
    }
}
