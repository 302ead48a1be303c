import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection
import Testing
@testable import Dealer

/// The RestConnection example in Clients/README.md, run against a real gateway. The example's
/// text is the code between the markers below, and a test checks the README shows it verbatim,
/// so the README can never show code that does not compile or run.
@Suite(.serialized) final class ReadmeExampleTests {
    let gateway: GatewayProcess

    init() throws {
        gateway = try GatewayProcess()
    }

    deinit {
        gateway.stop()
    }

    @Test func exampleRuns() async throws {
        let serviceRoot = gateway.serviceRoot
        // README example begins
        let connection = RestConnection(baseURL: serviceRoot)

        // Untyped: `d` unwrapped into one object or a collection (1.0 array or 2.0 "results").
        let payload = try await connection.get("Person(1)?$expand=PersonCar,PersonCar/Car")
        print(payload.object?["lastName"]?.stringValue ?? "")            // Samson

        // Typed, with generated models; queries built with their literals quoted and encoded.
        let bob = try await connection.get(Person.self, Person.uri(personID: 1),
                                           query: ODataQuery(expand: ["PersonCar/Car"]).items)
        let query = ODataQuery(filter: .property("lastName") == "O'Brien", orderBy: [.ascending("firstName")])
        let obriens = try await connection.getAll(Person.self, "Person", query: query.items)
        for try await person in connection.all(Person.self) {            // page by page, by __next
            if person.personID > 3 { break }
        }
        let cars = try await connection.load(\.personCar, of: bob)       // a deferred navigation

        // Writes: POST (201), MERGE (only the properties that have a value) or PUT, DELETE,
        // $links, with If-Match from the ETag; a typed update keeps the entity's ETag current.
        var ada = try await connection.create(Person(firstName: "Ada", lastName: "Lovelace", createDate: .now))
        ada.lastName = "King"
        try await connection.update(&ada)                                // MERGE Person(61), If-Match
        ada.firstName = "Augusta"
        try await connection.update(&ada)                                // the new ETag: no 412
        let engine = try await connection.create(Car(make: "Babbage", model: "Engine", createStamp: .now))
        let owned = try await connection.create(PersonCar(createStamp: .now),
                                                links: ["Person": ada.uri, "Car": engine.uri])
        try await connection.delete(owned)                               // before Ada: it names her
        try await connection.delete(ada)
        try await connection.delete(engine)

        // $batch: reads and all-or-nothing change sets in one request, each with a typed result.
        var alice: BatchItem<Person>!
        var twin: BatchItem<Person>!
        try await connection.batch { batch in
            alice = batch.get(Person.self, Person.uri(personID: 2))
            batch.changeSet { changes in
                twin = changes.create(Person(firstName: "Ada", lastName: "Byron", createDate: .now))
            }
        }
        print(try alice.value.firstName, try twin.value.personID)        // Alice 62

        // Credentials on every request, a deadline, your own URLSession, a request adapter.
        let keyed = RestConnection(baseURL: serviceRoot, credentials: .bearer("KEY"), timeout: 15,
                                   session: URLSession(configuration: .ephemeral),
                                   adapter: { request in
                                       var request = request
                                       request.setValue("dealer-app/1.0", forHTTPHeaderField: "User-Agent")
                                       return request
                                   })
        let first = try await keyed.get(Person.self, "Person(2)")
        let again = try await keyed.get(Person.self, "Person(2)")        // If-None-Match: 304, last body
        // README example ends

        #expect(payload.object?["lastName"] == "Samson")
        #expect(bob.personCar?.count == 2)
        #expect(obriens.allSatisfy { $0.lastName == "O'Brien" } && !obriens.isEmpty)
        #expect(cars.map(\.personCarID) == [1, 2])
        await #expect(throws: RestConnectionError.self) { _ = try await connection.get(ada.uri) }
        #expect(try alice.value.firstName == "Alice")
        #expect(try twin.value.lastName == "Byron")
        #expect(first == again)
    }

    @Test func readmeShowsTheExampleVerbatim() throws {
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let lines = source.components(separatedBy: "\n")
        let begin = try #require(lines.firstIndex { $0.hasSuffix("// README example begins") })
        let end = try #require(lines.firstIndex { $0.hasSuffix("// README example ends") })
        let indent = String(lines[begin].prefix { $0 == " " })
        let example = lines[(begin + 1)..<end].map { $0.hasPrefix(indent) ? String($0.dropFirst(indent.count)) : $0 }
            .joined(separator: "\n")
        let readme = try String(contentsOf: TestPaths.repositoryRoot.appendingPathComponent("Clients/README.md"), encoding: .utf8)
        #expect(readme.contains("```swift\n" + example + "\n```"), "Clients/README.md must show the example as it is here")
    }
}
