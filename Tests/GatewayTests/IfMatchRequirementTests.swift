import CSDL
import Foundation
import Testing

/// Optimistic concurrency as metadata-driven clients see it: `$metadata` declares the ETag's
/// properties (ConcurrencyMode="Fixed"), and with `--require-if-match` a change without
/// If-Match is refused with 428, as WCF Data Services refuses it.
@Suite struct IfMatchRequirementTests {
    @Test func metadataDeclaresConcurrencyTokens() throws {
        let gateway = try TestGateway()
        let document = try CSDLReader.read(data: Data(try gateway.get("$metadata", accept: "application/xml").body))
        let person = try #require(document.schemas.flatMap(\.entityTypes).first { $0.name == "Person" })
        for property in person.properties {
            let isKey = person.key.contains(property.name)
            #expect(property.concurrencyMode == (isKey ? nil : "Fixed"), "\(property.name)")
        }
    }

    @Test func changesWithoutIfMatchAre428WhenRequired() throws {
        let gateway = try TestGateway { $0.requiresIfMatch = true }
        let before = try gateway.get("Person(1)")
        let tag = try #require(before.header("ETag"))
        for (method, target, body) in [("MERGE", "Person(1)", #"{"ssn":"1"}"#), ("PUT", "Person(1)/ssn", #"{"ssn":"1"}"#),
                                        ("PATCH", "Person(1)", #"{"ssn":"1"}"#), ("DELETE", "Person(1)", "")] {
            let refused = try gateway.send(method, target, text: body)
            #expect(refused.status == 428, "\(method) \(target): \(refused.text)")
            #expect(try refused.errorMessage().contains("If-Match"))
        }
        #expect(try gateway.get("Person(1)").header("ETag") == tag, "nothing was changed")
        // Creates need no If-Match; changes with it go ahead.
        let created = try gateway.send("POST", "Person", text: #"{"firstName":"A","lastName":"B","createDate":"\/Date(0)\/"}"#)
        #expect(created.status == 201)
        #expect(try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"1"}"#, headers: ["If-Match": tag]).status == 204)
        let location = try #require(created.header("Location"))
        let createdTarget = String(location.split(separator: "/").last!)
        #expect(try gateway.send("DELETE", createdTarget, text: "").status == 428)
        #expect(try gateway.send("DELETE", createdTarget, text: "", headers: ["If-Match": "*"]).status == 204)
    }

    @Test func withoutTheOptionIfMatchStaysOptional() throws {
        let gateway = try TestGateway()
        #expect(try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"1"}"#).status == 204)
    }
}
