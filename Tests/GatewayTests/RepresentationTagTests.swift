import Foundation
import Testing

/// One ETag per representation (`RepresentationTag`): a conditional GET never validates a
/// body cached in another form, while If-Match on a write accepts the entity's version in any.
@Suite struct RepresentationTagTests {
    let gateway: TestGateway

    init() throws { gateway = try TestGateway() }

    private func get(_ target: String, accept: String, ifNoneMatch: String? = nil) throws -> RawHTTPResponse {
        var headers = ["Accept": accept]
        headers["If-None-Match"] = ifNoneMatch
        return try gateway.request("GET", target, headers: headers)
    }

    @Test func eachRepresentationHasItsOwnTag() throws {
        let json = try #require(try get("Person(1)", accept: "application/json").header("ETag"))
        let atom = try #require(try get("Person(1)", accept: "application/atom+xml").header("ETag"))
        let selected = try #require(try get("Person(1)?$select=firstName", accept: "application/json").header("ETag"))
        let otherSelection = try #require(try get("Person(1)?$select=lastName", accept: "application/json").header("ETag"))
        let property = try #require(try get("Person(1)/firstName", accept: "application/xml").header("ETag"))
        #expect(Set([json, atom, selected, otherSelection, property]).count == 5, "\([json, atom, selected, otherSelection, property])")
        let entityTag = try #require((try get("Person(1)", accept: "application/json").d() as? [String: Any]).flatMap {
            ($0["__metadata"] as? [String: Any])?["etag"] as? String
        })
        #expect(json == entityTag, "the JSON entity's header is the entity's tag, which JSON clients echo")
        #expect(atom.hasPrefix(String(entityTag.dropLast())) && atom.hasSuffix("-atom\""))
        #expect(try get("Person(1)?$expand=PersonCar", accept: "application/json").header("ETag") == nil)
    }

    @Test func aConditionalGETValidatesOnlyItsOwnRepresentation() throws {
        let json = try #require(try get("Person(1)", accept: "application/json").header("ETag"))
        let atom = try #require(try get("Person(1)", accept: "application/atom+xml").header("ETag"))
        // The browser case: the JSON tag sent with an Atom request is a full answer, not a 304.
        let atomWithJSONTag = try get("Person(1)", accept: "application/atom+xml", ifNoneMatch: json)
        #expect(atomWithJSONTag.status == 200)
        #expect(atomWithJSONTag.header("Content-Type")?.hasPrefix("application/atom+xml") == true)
        #expect(try get("Person(1)", accept: "application/json", ifNoneMatch: atom).status == 200)
        #expect(try get("Person(1)?$select=firstName", accept: "application/json", ifNoneMatch: json).status == 200)
        let notModified = try get("Person(1)", accept: "application/atom+xml", ifNoneMatch: atom)
        #expect(notModified.status == 304)
        #expect(notModified.header("Vary") == "Accept")
        #expect(try get("Person(1)", accept: "application/json", ifNoneMatch: json).status == 304)
    }

    @Test func ifMatchOnAWriteTakesTheVersionFromAnyRepresentation() throws {
        let atom = try #require(try get("Person(1)", accept: "application/atom+xml").header("ETag"))
        let merged = try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"1"}"#, headers: ["If-Match": atom])
        #expect(merged.status == 204, "\(merged.text)")
        // Now stale, in whatever form it is sent.
        let stale = try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"2"}"#, headers: ["If-Match": atom])
        #expect(stale.status == 412)
        let stalePlain = try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"2"}"#, headers: ["If-Match": String(atom.dropFirst(2))])
        #expect(stalePlain.status == 412)
    }
}
