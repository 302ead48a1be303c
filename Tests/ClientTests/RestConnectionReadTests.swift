import Foundation
import RestConnection
import Testing
@testable import Dealer

/// RestConnection against a real gateway process: unwrapping, typed reads, paging, errors,
/// delegate callbacks and concurrent use.
@Suite(.serialized) final class RestConnectionReadTests {
    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    @Test func singleEntityUnwrapsToAnObject() async throws {
        let payload = try await connection.get("Person(1)")
        let person = try #require(payload.object)
        #expect(person["firstName"]?.stringValue == "Bob")
        #expect(person["lastName"]?.stringValue == "Samson")
        #expect(person["__metadata"]?["uri"]?.stringValue == gateway.root + "Person(1)")
    }

    @Test func version1CollectionUnwrapsToAnArray() async throws {
        // $top keeps the page under any server page size, so no __next makes the response 2.0.
        let response = try await connection.send(.get("Person?$top=5"))
        #expect(response.dataServiceVersion?.hasPrefix("1.0") == true)
        let collection = try #require(try ODataPayload(data: response.data, from: response.url).collection)
        #expect(collection.shape == .bareArray)
        #expect(collection.totalCount == nil)
        #expect(collection.elements.count == 5)
        #expect(collection.elements.first?["lastName"]?.stringValue == "Samson")
    }

    @Test func version2CollectionUnwrapsResultsAndCount() async throws {
        let all = try await connection.count("Person/$count")
        let payload = try await connection.get("Person", query: [URLQueryItem(name: "$inlinecount", value: "allpages"),
                                                                 URLQueryItem(name: "$top", value: "3")])
        let collection = try #require(payload.collection)
        #expect(collection.shape == .resultsObject)
        #expect(collection.elements.count == 3)
        #expect(collection.totalCount == all)
        #expect(all > 3)
    }

    @Test func blogRequestDecodesTyped() async throws {
        let person = try await connection.get(Person.self, "Person(1)?$expand=PersonCar,PersonCar/Car")
        #expect(person.createDate == Date(timeIntervalSince1970: 1_257_008_908.440))
        #expect(person.personCar?.map(\.personCarID) == [1, 2])
        #expect(person.personCar?.compactMap { $0.car.map { "\($0.make) \($0.model)" } } == ["Ford Explorer", "Ford Mustang"])
        #expect(person.personCar?.first?.person == nil, "deferred navigation decodes as nil")
    }

    @Test func expandedCollectionsInAVersion2Response() async throws {
        // $inlinecount makes the response 2.0, so the expanded PersonCar comes as {"results": [...]}.
        let page = try await connection.getCollection(Person.self, "Person?$expand=PersonCar/Car&$inlinecount=allpages&$top=2")
        #expect(page.shape == .resultsObject)
        #expect(page.elements.first?.personCar?.count == 2)
        #expect(page.elements.first?.personCar?.first?.car?.model == "Explorer")
    }

    @Test func typedCollectionFollowsEveryPage() async throws {
        let people = try await connection.getAll(Person.self, "Person")
        #expect(people.count == (try await connection.count("Person/$count")))
        #expect(Set(people.map(\.personID)).count == people.count)
    }

    @Test func unreachableServerIsAConnectionFailure() async throws {
        let closed = RestConnection(baseURL: URL(string: "http://127.0.0.1:1/CarDealer.svc/")!)
        await #expect {
            _ = try await closed.get("Person")
        } throws: { error in
            guard case .connectionFailed(_, let reason, _) = error as? RestConnectionError else { return false }
            return reason == "connection refused"
        }
    }

    @Test func silentServerTimesOut() async throws {
        let listener = try SilentListener()
        let slow = RestConnection(baseURL: URL(string: "http://127.0.0.1:\(listener.port)/CarDealer.svc/")!, timeout: 1)
        await #expect {
            _ = try await slow.get("Person")
        } throws: { error in
            guard case .connectionFailed(_, let reason, let code) = error as? RestConnectionError else { return false }
            return code == .timedOut && reason == "timed out"
        }
        listener.close()
    }

    @Test func missingEntityIsAnHTTPErrorWithTheODataError() async throws {
        await #expect {
            _ = try await connection.get("Person(424242)")
        } throws: { error in
            guard case .httpError(_, 404, let odata?, _) = error as? RestConnectionError else { return false }
            return odata.message.contains("Person(424242)") && !odata.code.isEmpty
        }
    }

    @Test func malformedRequestIsA400WithTheODataError() async throws {
        await #expect {
            _ = try await connection.get("Person(1)?$top=-1")
        } throws: { error in
            (error as? RestConnectionError)?.statusCode == 400 && (error as? RestConnectionError)?.odataError != nil
        }
    }

    @Test func nonJSONPayloadIsUnexpected() async throws {
        await #expect {
            _ = try await connection.get("$metadata")
        } throws: { error in
            guard case .unexpectedPayload(_, let reason) = error as? RestConnectionError else { return false }
            return reason.contains("not JSON")
        }
        await #expect {
            _ = try await connection.get(Person.self, "Person/$count")
        } throws: { error in
            if case .unexpectedPayload = error as? RestConnectionError { return true }
            return false
        }
    }

    @Test func wrongShapeIsUnexpected() async throws {
        // A collection where one entity was expected.
        await #expect {
            _ = try await connection.get(Person.self, "Person")
        } throws: { error in
            if case .unexpectedPayload = error as? RestConnectionError { return true }
            return false
        }
    }

    @Test @MainActor func delegateHearsCallbacksInOrder() async throws {
        let delegate = RecordingDelegate()
        connection.delegate = delegate
        let ok = await connection.perform(.get("Person(1)")).value
        #expect(ok?.statusCode == 200)
        let bodySize = try #require(ok?.data.count)
        #expect(delegate.events == [.willSend(gateway.root + "Person(1)"), .didReceive(200), .finished(bodySize)])

        let missing = RecordingDelegate()
        connection.delegate = missing
        #expect(await connection.perform(.get("Person(424242)")).value == nil)
        #expect(missing.events == [.willSend(gateway.root + "Person(424242)"), .didReceive(404), .failed("http 404")])

        let unreachable = RestConnection(baseURL: URL(string: "http://127.0.0.1:1/CarDealer.svc/")!)
        let refused = RecordingDelegate()
        unreachable.delegate = refused
        _ = try? await unreachable.get("Person")
        #expect(refused.events == [.willSend("http://127.0.0.1:1/CarDealer.svc/Person"), .failed("connection")])
    }

    @Test @MainActor func delegateIsHeldWeakly() {
        var delegate: RecordingDelegate? = RecordingDelegate()
        connection.delegate = delegate
        delegate = nil
        #expect(connection.delegate == nil)
    }

    @Test func manyTasksShareOneConnection() async throws {
        let connection = self.connection
        let ids = Array(1...40).map { Int32(($0 % 20) + 1) }
        let names = try await withThrowingTaskGroup(of: (Int32, Int32).self) { group in
            for id in ids {
                group.addTask {
                    let person = try await connection.get(Person.self, Person.uri(personID: id))
                    return (id, person.personID)
                }
            }
            var pairs: [(Int32, Int32)] = []
            for try await pair in group { pairs.append(pair) }
            return pairs
        }
        #expect(names.count == ids.count)
        #expect(names.allSatisfy { $0.0 == $0.1 })
    }
}
