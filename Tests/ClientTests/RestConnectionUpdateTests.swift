import Foundation
import RestConnection
import Testing
@testable import Dealer

/// Typed updates: the ETag stays current, and MERGE never wipes what the caller did not set.
@Suite(.serialized) final class RestConnectionUpdateTests {
    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    @Test func secondUpdateOfTheSameValueIsNotRefused() async throws {
        var person = try await connection.create(Person(firstName: "Ada", lastName: "Lovelace", createDate: Date(timeIntervalSince1970: 0)))
        let firstETag = try #require(person.metadata?.etag)
        person.lastName = "King"
        try await connection.update(&person)
        #expect(person.metadata?.etag != firstETag)
        person.firstName = "Augusta"
        try await connection.update(&person)
        try await connection.delete(person)
    }

    @Test func mergeFromALocalStructLeavesOtherFieldsAlone() async throws {
        let created = try await connection.create(Person(firstName: "Ada", lastName: "Lovelace", ssn: "123-45-6789",
                                                         createDate: Date(timeIntervalSince1970: 0)))
        var local = Person(personID: created.personID, firstName: "Augusta", lastName: "King",
                           createDate: created.createDate, metadata: created.metadata)
        try await connection.update(&local)
        let read = try await connection.get(Person.self, created.uri)
        #expect(read.firstName == "Augusta")
        #expect(read.ssn == "123-45-6789", "MERGE leaves a nil property as the server has it")
        // PUT replaces: nil is sent as null.
        try await connection.update(&local, method: .put)
        #expect(try await connection.get(Person.self, created.uri).ssn == nil)
    }

    @Test func conditionalGetIsAnsweredFromTheLastBody() async throws {
        let recorder = RecordingDelegate()
        connection.delegate = recorder
        let first = try await connection.get(Person.self, Person.uri(personID: 1))
        let second = try await connection.get(Person.self, Person.uri(personID: 1))
        #expect(first == second)
        #expect(await recorder.events.contains(.didReceive(304)), "the second read was conditional and answered 304")
        // A change is seen at once: the ETag no longer matches, so the server sends the body.
        try await connection.update(first.uri, with: ["firstName": "Robert"])
        #expect(try await connection.get(Person.self, Person.uri(personID: 1)).firstName == "Robert")
        withExtendedLifetime(recorder) {}  // the connection holds its delegate weakly
    }
}
