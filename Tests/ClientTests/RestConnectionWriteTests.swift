import Foundation
import RestConnection
import Testing
@testable import Dealer

/// RestConnection's writes against a real gateway: create (201), MERGE and PUT updates (also
/// tunnelled through POST), If-Match with the entity's ETag, delete, and links.
@Suite(.serialized) final class RestConnectionWriteTests {
    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    private func newPerson(_ firstName: String = "Ada", _ lastName: String = "Lovelace") async throws -> Person {
        try await connection.create(Person(firstName: firstName, lastName: lastName, ssn: "123-45-6789",
                                           createDate: Date(timeIntervalSince1970: 1_600_000_000)))
    }

    @Test func createReturnsTheEntityWithItsKey() async throws {
        let created = try await newPerson()
        #expect(created.personID > 0)
        #expect(created.firstName == "Ada")
        #expect(created.createDate == Date(timeIntervalSince1970: 1_600_000_000))
        let read = try await connection.get(Person.self, created.uri)
        #expect(read.lastName == "Lovelace")

        let untyped = try await connection.create(["make": .string("Saab"), "model": .string("900"),
                                                   "createStamp": .string("/Date(1600000000000)/")], in: "Car")
        #expect(untyped["carID"]?.intValue != nil)
    }

    @Test func mergeChangesOnlyWhatIsSent() async throws {
        let created = try await newPerson()
        try await connection.update(created.uri, with: ["firstName": .string("Augusta")])
        let read = try await connection.get(Person.self, created.uri)
        #expect(read.firstName == "Augusta")
        #expect(read.ssn == "123-45-6789", "MERGE leaves other properties alone")
    }

    @Test func putReplacesTheEntity() async throws {
        let created = try await newPerson()
        try await connection.update(created.uri, with: ["firstName": .string("Grace"), "lastName": .string("Hopper"),
                                                        "createDate": .string("/Date(0)/")], method: .put)
        let read = try await connection.get(Person.self, created.uri)
        #expect(read.firstName == "Grace")
        #expect(read.ssn == nil, "PUT resets properties left out")
    }

    @Test func typedUpdateSendsMergeWithTheETag() async throws {
        var person = try await connection.get(Person.self, try await newPerson().uri)
        person.lastName = "Byron"
        try await connection.update(&person)
        #expect(try await connection.get(Person.self, person.uri).lastName == "Byron")
    }

    @Test func tunnelledMergeArrivesAsMerge() async throws {
        let tunnelling = RestConnection(baseURL: gateway.serviceRoot, tunnelling: .post)
        let created = try await newPerson()
        try await tunnelling.update(created.uri, with: ["lastName": .string("King")])
        let read = try await connection.get(Person.self, created.uri)
        #expect(read.lastName == "King")
        #expect(read.firstName == "Ada")
    }

    @Test func staleETagIsRefused() async throws {
        let created = try await newPerson()
        let first = try await connection.send(.get(created.uri))
        let etag = try #require(first.etag, "single-entity responses carry an ETag")
        try await connection.update(created.uri, with: ["firstName": .string("One")], ifMatch: etag)
        await #expect {
            try await connection.update(created.uri, with: ["firstName": .string("Two")], ifMatch: etag)
        } throws: { error in
            (error as? RestConnectionError)?.statusCode == 412
        }
        #expect(try await connection.get(Person.self, created.uri).firstName == "One")
    }

    @Test func deleteRemovesTheEntity() async throws {
        let created = try await newPerson()
        try await connection.delete(created)
        await #expect {
            _ = try await connection.get(created.uri)
        } throws: { error in
            (error as? RestConnectionError)?.statusCode == 404
        }
    }

    @Test func linksBindAddAndReplace() async throws {
        let owner = try await newPerson()
        let car = try await connection.create(Car(make: "Volvo", model: "240", createStamp: Date(timeIntervalSince1970: 1_600_000_000)))
        // Bound on create with {"__metadata":{"uri":...}}.
        let ownership = try await connection.create(PersonCar(createStamp: Date(timeIntervalSince1970: 1_600_000_000)),
                                                    links: ["Person": owner.uri, "Car": car.uri])
        let bound = try await connection.get(PersonCar.self, ownership.uri + "?$expand=Person,Car")
        #expect(bound.person?.personID == owner.personID)
        #expect(bound.car?.carID == car.carID)

        // POST $links on the person's side moves the ownership to another person.
        let buyer = try await newPerson("Charles", "Babbage")
        try await connection.link(buyer.uri, navigation: "PersonCar", to: ownership.uri)
        let links = try await connection.get(buyer.uri + "/$links/PersonCar")
        #expect(links.array?.compactMap { $0["uri"]?.stringValue } == [gateway.root + ownership.uri])

        // PUT $links on a to-one replaces it.
        try await connection.link(ownership.uri, navigation: "Car", to: Car.uri(carID: 2), replace: true)
        #expect(try await connection.get(PersonCar.self, ownership.uri + "?$expand=Car").car?.carID == 2)
    }
}
