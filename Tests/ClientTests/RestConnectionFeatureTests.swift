import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection
import Testing
@testable import Dealer

/// What pyodata and DataSvcUtil users expect: `$batch` with change sets, deferred navigation,
/// a request adapter and an injected URLSession.
@Suite(.serialized) final class RestConnectionFeatureTests {
    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    @Test func batchWithTypedResultsAndAChangeSet() async throws {
        let before = try await connection.count("Person/$count")
        var bob: BatchItem<Person>!
        var page: BatchItem<ODataCollection<Car>>!
        var ada: BatchItem<Person>!
        var grace: BatchItem<Person>!
        try await connection.batch { batch in
            bob = batch.get(Person.self, Person.uri(personID: 1))
            page = batch.getCollection(Car.self, "Car", query: ODataQuery(top: 2).items)
            batch.changeSet { changes in
                ada = changes.create(Person(firstName: "Ada", lastName: "Lovelace", createDate: Date(timeIntervalSince1970: 0)))
                grace = changes.create(Person(firstName: "Grace", lastName: "Hopper", createDate: Date(timeIntervalSince1970: 0)))
            }
        }
        #expect(try bob.value.lastName == "Samson")
        #expect(try page.value.elements.count == 2)
        #expect(try ada.value.personID > 0 && grace.value.personID > ada.value.personID)
        #expect(try await connection.count("Person/$count") == before + 2)
    }

    @Test func aFailedChangeSetChangesNothing() async throws {
        let before = try await connection.count("Person/$count")
        let ghost = Person(personID: 424242, firstName: "No", lastName: "One", createDate: Date(timeIntervalSince1970: 0))
        var created: BatchItem<Person>!
        var deleted: BatchItem<RestResponse>!
        var read: BatchItem<Person>!
        try await connection.batch { batch in
            batch.changeSet { changes in
                created = changes.create(Person(firstName: "Half", lastName: "Done", createDate: Date(timeIntervalSince1970: 0)))
                deleted = changes.delete(ghost)
            }
            read = batch.get(Person.self, Person.uri(personID: 2))
        }
        #expect(throws: RestConnectionError.self) { _ = try created.value }
        #expect { _ = try deleted.value } throws: { ($0 as? RestConnectionError)?.statusCode == 404 }
        #expect(try read.value.firstName == "Alice", "a read after a failed change set is still answered")
        #expect(try await connection.count("Person/$count") == before, "the change set is all or nothing")
    }

    @Test func deferredNavigationLoads() async throws {
        let bob = try await connection.get(Person.self, Person.uri(personID: 1))
        #expect(bob.personCar == nil, "not expanded")
        let cars = try await connection.load(\.personCar, of: bob)
        #expect(cars.map(\.personCarID) == [1, 2])
        let owner = try await connection.load(\.person, of: cars[0])
        #expect(owner?.personID == 1)
    }

    @Test func adapterChangesEveryRequest() async throws {
        let server = try RecordingServer()
        defer { server.close() }
        let counter = Counter()
        let adapted = RestConnection(baseURL: URL(string: server.root)!, adapter: { request in
            var request = request
            request.setValue("token-\(counter.next())", forHTTPHeaderField: "Authorization")
            return request
        })
        _ = try await adapted.get("Person")
        _ = try await adapted.get("Person")
        #expect(server.header("Authorization", request: 0) == "token-1")
        #expect(server.header("Authorization", request: 1) == "token-2")
    }

    /// A service operation called with a malformed or a missing parameter: a typed 400 whose
    /// message names the parameter, through `callFunction` and through the generated method's path.
    @Test func aMissingOrMalformedParameterIsA400NamingIt() async throws {
        func failure(_ call: () async throws -> Void) async -> RestConnectionError? {
            do {
                try await call()
                return nil
            } catch {
                return error as? RestConnectionError
            }
        }
        let calls: [(String, RestConnectionError?)] = [
            ("a text for an Edm.Int32", await failure {
                _ = try await connection.callFunction("CarsDueForService", parameters: ["miles": "lots"],
                                                      returningCollectionOf: PersonCarMaintenance.self)
            }),
            ("a number beyond Edm.Int32", await failure {
                _ = try await connection.callFunction("CarsDueForService", parameters: ["miles": Int64(5_000_000_000)],
                                                      returningCollectionOf: PersonCarMaintenance.self)
            }),
            ("missing", await failure {
                _ = try await connection.callFunction("CarsDueForService", returningCollectionOf: PersonCarMaintenance.self)
            }),
            ("misspelt, so missing", await failure {
                _ = try await connection.callFunction("TotalMaintenanceCost", parameters: ["personId": Int32(1)],
                                                      returningPrimitive: Decimal.self)
            }),
        ]
        for (index, (what, error)) in calls.enumerated() {
            let name = index < 3 ? "'miles'" : "'personID'"
            guard let error else {
                Issue.record("\(what): no typed error")
                continue
            }
            #expect(error.statusCode == 400, "\(what): \(error)")
            #expect(error.odataError?.message.contains(name) == true, "\(what): \(error)")
            #expect(error.description.contains(name), "\(what): \(error)")
        }
        #expect(calls[2].1?.odataError?.message.contains("missing") == true)
        // Well formed, the same call answers.
        #expect(try await connection.totalMaintenanceCost(personID: 1) > 0)
    }

    @Test func injectedSessionIsUsed() async throws {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpAdditionalHeaders = ["X-From-Session": "yes"]
        let server = try RecordingServer()
        defer { server.close() }
        let injected = RestConnection(baseURL: URL(string: server.root)!, session: URLSession(configuration: configuration))
        _ = try await injected.get("Person")
        #expect(server.header("X-From-Session") == "yes")
    }
}

/// A counter the adapter closure can share across tasks.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var value = 0

    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        value += 1
        return value
    }
}
