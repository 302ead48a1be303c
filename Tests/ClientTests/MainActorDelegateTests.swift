import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection
import Testing
@testable import Dealer

/// What an app's view controller looks like as the blog's delegate: main-actor isolated, with
/// mutable state of its own, no locks and no `@unchecked Sendable`. It compiles only because the
/// delegate protocol is main-actor isolated, and the callbacks check at run time that they are
/// on the main actor (an isolation mistake would trap here).
@MainActor
final class PeopleViewController: RestConnectionDelegate {
    let connection: RestConnection
    private(set) var status = "idle"
    private(set) var names: [String] = []
    private(set) var callbacks: [String] = []

    init(connection: RestConnection) {
        self.connection = connection
        connection.delegate = self
    }

    func load() -> Task<RestResponse?, Never> {
        connection.perform(.get("Person?$top=3"))
    }

    func restConnection(_ connection: RestConnection, willSend request: URLRequest) {
        MainActor.assertIsolated()
        status = "loading"
        callbacks.append("willSend")
    }

    func restConnection(_ connection: RestConnection, didReceive response: HTTPURLResponse, for request: URLRequest) {
        MainActor.assertIsolated()
        callbacks.append("didReceive \(response.statusCode)")
    }

    func restConnection(_ connection: RestConnection, finishedReceiving data: Data, for request: URLRequest) {
        MainActor.assertIsolated()
        let payload = try? ODataPayload(data: data, from: request.url!)
        names = payload?.array?.compactMap { $0["lastName"]?.stringValue } ?? []
        status = "loaded"
        callbacks.append("finished")
    }

    func restConnection(_ connection: RestConnection, failedWith error: RestConnectionError, for request: URLRequest) {
        MainActor.assertIsolated()
        status = "failed: \(error)"
        callbacks.append("failed")
    }
}

@Suite(.serialized) final class MainActorDelegateTests {
    let gateway: GatewayProcess

    init() throws {
        gateway = try GatewayProcess()
    }

    deinit {
        gateway.stop()
    }

    @Test @MainActor func viewControllerHearsOnTheMainActor() async throws {
        let controller = PeopleViewController(connection: RestConnection(baseURL: gateway.serviceRoot))
        let response = await controller.load().value
        #expect(response?.statusCode == 200)
        #expect(controller.callbacks == ["willSend", "didReceive 200", "finished"])
        #expect(controller.status == "loaded")
        #expect(controller.names == ["Samson", "Samson", "Gonzalez"])
    }

    @Test func callbacksReachTheMainActorFromAnyTask() async throws {
        let connection = RestConnection(baseURL: gateway.serviceRoot)
        let controller = await PeopleViewController(connection: connection)
        // A typed call from a background task: the callbacks still arrive on the main actor.
        _ = try await Task.detached { try await connection.get(Person.self, Person.uri(personID: 1)) }.value
        #expect(await controller.callbacks == ["willSend", "didReceive 200", "finished"])
        _ = try? await connection.get("Person(424242)")
        #expect(await controller.status.hasPrefix("failed: "))
    }
}
