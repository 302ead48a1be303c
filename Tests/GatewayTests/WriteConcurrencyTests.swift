import Foundation
import Testing

/// ETags and conditional requests: every entity carries one, If-Match guards writes (412),
/// If-None-Match spares reads (304), and of clients racing with the same ETag exactly one wins.
@Suite struct WriteConcurrencyTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    func etag(_ gateway: TestGateway, _ target: String) throws -> String {
        try #require(try gateway.get(target).header("ETag"))
    }

    @Test(arguments: TestGateway.engines) func everyEntityHasAnETagInMetadataAndHeader(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        for set in ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"] {
            let first = try #require((try gateway.get("\(set)?$top=1").d() as? [[String: Any]])?.first)
            let metadata = try #require(first["__metadata"] as? [String: Any])
            let tag = try #require(metadata["etag"] as? String)
            #expect(tag.hasPrefix("W/\"") && tag.hasSuffix("\""))
            let uri = try #require(metadata["uri"] as? String)
            #expect(try gateway.get(String(uri.dropFirst(gateway.root.count))).header("ETag") == tag, "\(set): the same ETag in a feed and alone")
        }
        // Expanded entities carry theirs too, and a property response carries its entity's.
        let expanded = try gateway.entity("PersonCar(1)?$expand=Car")
        #expect(((expanded["Car"] as? [String: Any])?["__metadata"] as? [String: Any])?["etag"] as? String == (try etag(gateway, "Car(2)")))
        #expect(try gateway.get("Person(1)/firstName").header("ETag") == (try etag(gateway, "Person(1)")))
        // Different entities, different tags.
        #expect(try etag(gateway, "Person(1)") != (try etag(gateway, "Person(2)")))
    }

    @Test(arguments: TestGateway.engines) func ifMatchGuardsUpdatesAndDeletes(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let original = try etag(gateway, "Person(6)")
        let update = try gateway.send("MERGE", "Person(6)", json: ["ssn": "111"], headers: ["If-Match": original])
        #expect(update.status == 204)
        let current = try #require(update.header("ETag"))
        #expect(current != original, "a change changes the ETag")
        #expect(try etag(gateway, "Person(6)") == current)

        let before = try gateway.tableContents()
        for method in ["PUT", "MERGE", "PATCH"] {
            let stale = try gateway.send(method, "Person(6)", json: ["firstName": "Lost", "lastName": "Update", "createDate": "/Date(0)/"],
                                         headers: ["If-Match": original])
            #expect(stale.status == 412, "\(method)")
            #expect(try stale.errorMessage().contains("Person(6)"))
        }
        #expect(try gateway.send("PUT", "Person(6)/ssn", json: ["ssn": "x"], headers: ["If-Match": original]).status == 412)
        #expect(try gateway.send("DELETE", "Person(6)/ssn/$value", body: [], headers: ["If-Match": original, "Content-Type": ""]).status == 412)
        #expect(try gateway.send("DELETE", "Person(6)", body: [], headers: ["If-Match": original, "Content-Type": ""]).status == 412)
        #expect(try gateway.tableContents() == before)

        // `*`, the tag without its weak prefix, and a list that contains it all match.
        #expect(try gateway.send("MERGE", "Person(6)", json: ["ssn": "222"], headers: ["If-Match": "*"]).status == 204)
        let tag = try etag(gateway, "Person(6)")
        #expect(try gateway.send("MERGE", "Person(6)", json: ["ssn": "333"], headers: ["If-Match": String(tag.dropFirst(2))]).status == 204)
        let next = try etag(gateway, "Person(6)")
        #expect(try gateway.send("MERGE", "Person(6)", json: ["ssn": "444"], headers: ["If-Match": "W/\"0000000000000000\", \(next)"]).status == 204)
        #expect(try gateway.send("PUT", "Person(6)", json: [:], headers: ["If-None-Match": "*"]).status == 400)

        // Deleting with the right tag works; the entity had no cars.
        let fresh = try gateway.send("POST", "Person", json: ["firstName": "Short", "lastName": "Lived", "createDate": "/Date(0)/"])
        let freshTag = try #require(fresh.header("ETag"))
        #expect(try gateway.send("DELETE", "Person(61)", body: [], headers: ["If-Match": freshTag, "Content-Type": ""]).status == 204)
    }

    @Test(arguments: TestGateway.engines) func aLinkChangeChangesTheDependentsETag(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try etag(gateway, "PersonCar(2)")
        #expect(try gateway.send("PUT", "PersonCar(2)/$links/Car", json: ["uri": "Car(8)"]).status == 204)
        #expect(try etag(gateway, "PersonCar(2)") != before)
    }

    @Test(arguments: TestGateway.engines) func ifNoneMatchOnGetAnswers304(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let tag = try etag(gateway, "Car(3)")
        let notModified = try gateway.request("GET", "Car(3)", headers: ["Accept": "application/json", "If-None-Match": tag])
        #expect(notModified.status == 304)
        #expect(notModified.body.isEmpty)
        #expect(notModified.header("ETag") == tag)
        #expect(try gateway.request("GET", "Car(3)", headers: ["If-None-Match": "*"]).status == 304)
        #expect(try gateway.request("GET", "Car(3)/model", headers: ["If-None-Match": tag]).status == 304)

        #expect(try gateway.send("MERGE", "Car(3)", json: ["model": "Changed"]).status == 204)
        let modified = try gateway.request("GET", "Car(3)", headers: ["Accept": "application/json", "If-None-Match": tag])
        #expect(modified.status == 200)
        #expect(modified.header("ETag") != tag)
        // A feed has no single ETag; the header does not apply to it.
        #expect(try gateway.request("GET", "Car?$top=2", headers: ["Accept": "application/json", "If-None-Match": "*"]).status == 200)
        // If-Match on a GET answers 412 when it names another version.
        #expect(try gateway.request("GET", "Car(3)", headers: ["Accept": "application/json", "If-Match": tag]).status == 412)
    }

    @Test(arguments: TestGateway.engines) func ofClientsRacingWithTheSameETagExactlyOneWins(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        for round in 0..<5 {
            let tag = try etag(gateway, "Person(7)")
            let contenders = 8
            let statuses = Statuses()
            let start = DispatchSemaphore(value: 0)
            let group = DispatchGroup()
            for contender in 0..<contenders {
                group.enter()
                Thread.detachNewThread {
                    defer { group.leave() }
                    start.wait()
                    let response = try? gateway.send("MERGE", "Person(7)", json: ["firstName": "Racer \(round)-\(contender)"], headers: ["If-Match": tag])
                    statuses.record(contender, response?.status ?? -1)
                }
            }
            for _ in 0..<contenders { start.signal() }
            #expect(group.wait(timeout: .now() + 60) == .success)
            let results = statuses.all
            #expect(results.count == contenders)
            let winners = results.filter { $0.value == 204 }.map(\.key)
            #expect(winners.count == 1, "round \(round): \(results)")
            #expect(results.values.filter { $0 == 412 }.count == contenders - 1, "round \(round): \(results)")
            if let winner = winners.first {
                #expect(try gateway.entity("Person(7)")["firstName"] as? String == "Racer \(round)-\(winner)")
            }
        }
    }
}

/// Statuses collected from several threads.
private final class Statuses: @unchecked Sendable {
    private let lock = NSLock()
    private var statuses: [Int: Int] = [:]

    func record(_ contender: Int, _ status: Int) {
        lock.lock()
        statuses[contender] = status
        lock.unlock()
    }

    var all: [Int: Int] {
        lock.lock()
        defer { lock.unlock() }
        return statuses
    }
}
