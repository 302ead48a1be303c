import Foundation
@testable import ODataHTTP
import ODataURI
import Testing

/// The limits on what one request reads and writes (`QueryLimits`, the `serve` options
/// `--max-results-per-collection` and the others): each at its boundary on the real server,
/// exactly the limit answered and one past it a 400 naming the limit, its value and its option;
/// and the `$expand` and `$batch` amplifications of the 60-person seed refused by the defaults.
@Suite struct RequestLimitsTests {
    /// `$expand` there and back: 16,678 entities, 6.9 MB, for one GET on the seed.
    static let amplifyingExpand = "Person?$expand=PersonCar/PersonCarMaintenance/Maintenance/PersonCarMaintenance/PersonCar/Car"

    static func gateway(_ set: (inout QueryLimits) -> Void) throws -> TestGateway {
        try TestGateway { configuration in set(&configuration.limits) }
    }

    /// The entities of a verbose JSON response: every object with `__metadata`, as often as written.
    static func entityCount(_ value: Any) -> Int {
        if let object = value as? [String: Any] {
            return (object["__metadata"] == nil ? 0 : 1) + object.filter { $0.key != "__metadata" }.values.reduce(0) { $0 + entityCount($1) }
        }
        if let array = value as? [Any] { return array.reduce(0) { $0 + entityCount($1) } }
        return 0
    }

    /// The entities of the largest collection expanded along `navigation` anywhere in the response.
    static func largestCollection(_ value: Any, along navigation: String) -> Int {
        if let object = value as? [String: Any] {
            var largest = 0
            for (key, member) in object {
                if key == navigation {
                    let results = (member as? [Any]) ?? ((member as? [String: Any])?["results"] as? [Any])
                    largest = max(largest, results?.count ?? 0)
                }
                largest = max(largest, largestCollection(member, along: navigation))
            }
            return largest
        }
        if let array = value as? [Any] { return array.reduce(0) { max($0, largestCollection($1, along: navigation)) } }
        return 0
    }

    static func expectRefused(_ response: RawHTTPResponse, naming option: String, value: Int,
                              sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == 400, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        let message = try response.errorMessage()
        #expect(message.contains("(--\(option) \(value))"), "\(message)", sourceLocation: sourceLocation)
        #expect(message.contains("more than \(value) "), "\(message)", sourceLocation: sourceLocation)
    }

    // MARK: Entities per response

    /// Every way a read is made: a page kept in a cursor with its expansions read level by level
    /// (with entities shared by several parents, written under each), a page written row by row
    /// with joined expansions, a plain page, an entity streamed with its collections, an entity
    /// kept in a cursor, and Atom.
    @Test(arguments: [
        "Person?$expand=PersonCar/PersonCarMaintenance/Maintenance",
        "PersonCar?$expand=PersonCarMaintenance/Maintenance/PersonCarMaintenance",
        "PersonCarMaintenance?$expand=Maintenance,PersonCar/Car,PersonCar/Person",
        "Person",
        "Maintenance(1)?$expand=PersonCarMaintenance/PersonCar/Car",
        "Maintenance(1)?$expand=PersonCarMaintenance/PersonCar/PersonCarMaintenance",
        "Person(1)/PersonCar?$expand=Car,PersonCarMaintenance",
    ])
    func entitiesPerResponseAtTheLimit(target: String) throws {
        let expected = Self.entityCount(try Self.gateway { $0.maxEntitiesPerResponse = .max }.get(TestGateway.encodeQuery(target)).d())
        #expect(expected > 1)

        let atLimit = try Self.gateway { $0.maxEntitiesPerResponse = expected }
        let answered = try atLimit.get(TestGateway.encodeQuery(target))
        #expect(answered.status == 200, "\(answered.text.prefix(300))")
        #expect(Self.entityCount(try answered.d()) == expected)

        let pastLimit = try Self.gateway { $0.maxEntitiesPerResponse = expected - 1 }
        try Self.expectRefused(try pastLimit.get(TestGateway.encodeQuery(target)), naming: "max-entities-per-response", value: expected - 1)
    }

    @Test func atomCountsTheSameEntities() throws {
        let target = TestGateway.encodeQuery("Person?$expand=PersonCar/Car")
        let expected = Self.entityCount(try TestGateway().get(target).d())
        let atLimit = try Self.gateway { $0.maxEntitiesPerResponse = expected }
        let feed = try atLimit.get(target, accept: "application/atom+xml")
        #expect(feed.status == 200)
        #expect(feed.text.components(separatedBy: "<entry").count - 1 == expected)

        let pastLimit = try Self.gateway { $0.maxEntitiesPerResponse = expected - 1 }
        let refused = try pastLimit.get(target, accept: "application/atom+xml")
        #expect(refused.status == 400)
        #expect(refused.text.contains("(--max-entities-per-response \(expected - 1))"), "\(refused.text)")
    }

    /// The issue's reproducer is refused by the defaults, quickly and with a short answer;
    /// the seed's ordinary expansions are not.
    @Test func theDefaultsRefuseTheAmplifyingExpandAndServeOrdinaryOnes() throws {
        let gateway = try TestGateway()
        let refused = try gateway.get(TestGateway.encodeQuery(Self.amplifyingExpand))
        try Self.expectRefused(refused, naming: "max-entities-per-response", value: QueryLimits().maxEntitiesPerResponse)
        #expect(refused.body.count < 1024)
        for target in ["Person?$expand=PersonCar/PersonCarMaintenance/Maintenance", "Person(1)?$expand=PersonCar,PersonCar/Car",
                       "Maintenance?$expand=PersonCarMaintenance/PersonCar/Person/PersonCar",
                       "PersonCarMaintenance?$expand=Maintenance,PersonCar/Car,PersonCar/Person"] {
            #expect(try gateway.get(TestGateway.encodeQuery(target)).status == 200, "\(target)")
        }
    }

    // MARK: Rows per expanded collection

    /// A page whose collections are read level by level into a cursor, and one entity whose collection is streamed
    /// as the response is written; top-level pages are paged, not limited.
    @Test func resultsPerCollectionAtTheLimit() throws {
        let page = "Maintenance?$expand=PersonCarMaintenance"
        let largest = Self.largestCollection(try TestGateway().get(TestGateway.encodeQuery(page)).d(), along: "PersonCarMaintenance")
        #expect(largest > 1)
        // The maintenance item with the largest collection, for the streamed read of one entity.
        let all = try TestGateway().get(TestGateway.encodeQuery(page)).d() as! [[String: Any]]
        let item = try #require(all.first { Self.largestCollection($0, along: "PersonCarMaintenance") == largest })
        let single = "Maintenance(\(item["maintenanceID"] as! Int))?$expand=PersonCarMaintenance/PersonCar"

        let atLimit = try Self.gateway { $0.maxResultsPerCollection = largest }
        for target in [page, single, "Person"] {
            let answered = try atLimit.get(TestGateway.encodeQuery(target))
            #expect(answered.status == 200, "\(target): \(answered.text.prefix(300))")
        }
        #expect(Self.largestCollection(try atLimit.get(TestGateway.encodeQuery(page)).d(), along: "PersonCarMaintenance") == largest)

        let pastLimit = try Self.gateway { $0.maxResultsPerCollection = largest - 1 }
        for target in [page, single] {
            let refused = try pastLimit.get(TestGateway.encodeQuery(target))
            try Self.expectRefused(refused, naming: "max-results-per-collection", value: largest - 1)
            #expect(try refused.errorMessage().contains("PersonCarMaintenance"))
        }
        // The top-level page is cut by the page size, as always, not refused.
        let people = try Self.gateway { $0.maxResultsPerCollection = 1 }.get("Person")
        #expect(people.status == 200)
    }

    // MARK: $batch

    static func post(_ gateway: TestGateway, _ body: String) throws -> RawHTTPResponse {
        try gateway.send("POST", "$batch", text: body, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
    }

    static func get(_ uri: String) -> BatchTests.Operation { BatchTests.Operation(method: "GET", uri: uri) }

    static func newPerson(_ name: String) -> BatchTests.Operation {
        BatchTests.Operation(method: "POST", uri: "Person", body: #"{"firstName":"L","lastName":"\#(name)","createDate":"\/Date(0)\/"}"#)
    }

    static func statuses(_ response: RawHTTPResponse) throws -> [[Int]] {
        try BatchTests.answers(response).map { part in
            switch part {
            case .single(let answer): return [answer.status]
            case .changeSet(let answers): return answers.map(\.status)
            }
        }
    }

    /// The issue's `$batch`: 40 amplifying GETs in 7.4 KB. Each is answered with its own 400,
    /// and the whole answer stays small.
    @Test func theDefaultsRefuseEachAmplifyingGetOfABatch() throws {
        let gateway = try TestGateway()
        let body = BatchTests.body(Array(repeating: Self.get(TestGateway.encodeQuery(Self.amplifyingExpand)), count: 40))
        let response = try Self.post(gateway, body)
        #expect(response.status == 202)
        #expect(response.body.count < 40 * 1024)
        let answers = try BatchTests.answers(response)
        #expect(answers.count == 40)
        for case .single(let answer) in answers {
            #expect(answer.status == 400)
            #expect(answer.text.contains("(--max-entities-per-response \(QueryLimits().maxEntitiesPerResponse))"), "\(answer.text)")
        }
    }

    @Test func operationsPerBatchAtTheLimit() throws {
        let gateway = try Self.gateway { $0.maxBatchCount = 3 }
        let three: [Any] = [Self.get("Person(1)"), [Self.newPerson("batch-a"), Self.newPerson("batch-b")]]
        #expect(try Self.statuses(Self.post(gateway, BatchTests.body(three))) == [[200], [201, 201]])

        let people = try gateway.rowCount("Person")
        let four: [Any] = [Self.get("Person(1)"), [Self.newPerson("batch-c"), Self.newPerson("batch-d")], Self.get("Person(2)")]
        try Self.expectRefused(try Self.post(gateway, BatchTests.body(four)), naming: "max-batch-count", value: 3)
        #expect(try gateway.rowCount("Person") == people)
    }

    @Test func operationsPerChangeSetAtTheLimit() throws {
        let gateway = try Self.gateway { $0.maxChangesetCount = 2 }
        let two: [Any] = [[Self.newPerson("set-a"), Self.newPerson("set-b")], [Self.newPerson("set-c")]]
        #expect(try Self.statuses(Self.post(gateway, BatchTests.body(two))) == [[201, 201], [201]])

        // Past the limit the batch is malformed: nothing of it runs, not even its other change sets.
        let people = try gateway.rowCount("Person")
        let three: [Any] = [[Self.newPerson("set-d")], [Self.newPerson("set-e"), Self.newPerson("set-f"), Self.newPerson("set-g")]]
        try Self.expectRefused(try Self.post(gateway, BatchTests.body(three)), naming: "max-changeset-count", value: 2)
        #expect(try gateway.rowCount("Person") == people)
    }

    /// A batch whose whole body is exactly the limit is answered whole; one byte less and its
    /// last GET is answered with a 400 instead; with no room left a change set is not run.
    @Test func bytesPerBatchResponseAtTheLimit() throws {
        let gets: [Any] = [Self.get("Person(1)"), Self.get("Person(2)?$expand=PersonCar"), Self.get("Person(3)")]
        let size = try Self.post(TestGateway(), BatchTests.body(gets)).body.count

        let atLimit = try Self.gateway { $0.maxBatchResponseBytes = size }
        let whole = try Self.post(atLimit, BatchTests.body(gets))
        #expect(whole.body.count == size)
        #expect(try Self.statuses(whole) == [[200], [200], [200]])

        let pastLimit = try Self.gateway { $0.maxBatchResponseBytes = size - 1 }
        let cut = try Self.post(pastLimit, BatchTests.body(gets))
        #expect(try Self.statuses(cut) == [[200], [200], [400]])
        guard case .single(let refused)? = try BatchTests.answers(cut).last else { throw TestFailure("no last answer") }
        #expect(refused.text.contains("(--max-batch-response-bytes \(size - 1))"), "\(refused.text)")

        // A GET that fills the response to its limit leaves no room for a change set after it.
        let first = [gets[0]]
        let firstSize = try Self.post(atLimit, BatchTests.body(first)).body.count
        let full = try Self.gateway { $0.maxBatchResponseBytes = firstSize }
        let people = try full.rowCount("Person")
        let withChangeSet: [Any] = first + [[Self.newPerson("late")]]
        let notRun = try Self.post(full, BatchTests.body(withChangeSet))
        #expect(try Self.statuses(notRun) == [[200], [400]])
        #expect(notRun.text.contains("This change set was not run"), "\(notRun.text)")
        #expect(try full.rowCount("Person") == people)
    }

    // MARK: Deep insert

    static func personWithCars(_ cars: Int) -> [String: Any] {
        ["firstName": "Deep", "lastName": "Insert", "createDate": "/Date(0)/",
         "PersonCar": (0..<cars).map { _ in ["createStamp": "/Date(0)/", "Car": ["__metadata": ["uri": "Car(1)"]]] }]
    }

    @Test func objectsPerInsertAtTheLimit() throws {
        let gateway = try Self.gateway { $0.maxObjectCountOnInsert = 3 }
        let (people, cars) = (try gateway.rowCount("Person"), try gateway.rowCount("PersonCar"))
        // The person and two of its cars: three entities.
        #expect(try gateway.send("POST", "Person", json: Self.personWithCars(2)).status == 201)
        #expect(try gateway.rowCount("PersonCar") == cars + 2)

        try Self.expectRefused(try gateway.send("POST", "Person", json: Self.personWithCars(3)), naming: "max-object-count-on-insert", value: 3)
        #expect(try gateway.rowCount("Person") == people + 1)
        #expect(try gateway.rowCount("PersonCar") == cars + 2)

        // A new Car inline, under a new PersonCar: counted at every depth.
        let nested: [String: Any] = ["firstName": "Deep", "lastName": "Nested", "createDate": "/Date(0)/",
                                     "PersonCar": [["createStamp": "/Date(0)/",
                                                    "Car": ["make": "M", "model": "N", "createStamp": "/Date(0)/"]]]]
        #expect(try gateway.send("POST", "Person", json: nested).status == 201)
        let deeper = try Self.gateway { $0.maxObjectCountOnInsert = 2 }
        try Self.expectRefused(try deeper.send("POST", "Person", json: nested), naming: "max-object-count-on-insert", value: 2)
    }
}

/// The limits as `dealer-gateway serve` takes them, and the memory of the process answering
/// the `$batch` amplification of the seed.
@Suite struct RequestLimitsProcessTests {
    static func serve(_ folder: URL, _ options: [String]) throws -> GatewayProcess {
        try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData",
                                       "--db", folder.appendingPathComponent("db.sqlite").path, "--port", "0", "--threads", "2"] + options)
    }

    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-limits-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    static func post(_ gateway: GatewayProcess, _ target: String, _ body: String, contentType: String) throws -> RawHTTPResponse {
        try RawHTTPClient.send(port: gateway.port, method: "POST", target: "/CarDealer.svc/" + target,
                               headers: ["Content-Type": contentType, "Accept": "application/json"], body: Array(body.utf8))
    }

    static func batch(_ gateway: GatewayProcess, _ parts: [Any]) throws -> RawHTTPResponse {
        try post(gateway, "$batch", BatchTests.body(parts), contentType: "multipart/mixed; boundary=batch_test")
    }

    @Test func theServeOptionsSetTheLimits() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gateway = try Self.serve(folder, ["--max-entities-per-response", "7", "--max-results-per-collection", "2",
                                              "--max-batch-count", "2", "--max-changeset-count", "1",
                                              "--max-object-count-on-insert", "1", "--max-batch-response-bytes", "3000"])
        defer { _ = gateway.stop() }
        try RequestLimitsTests.expectRefused(try gateway.get("Person?$top=8"), naming: "max-entities-per-response", value: 7)
        #expect(try gateway.get("Person?$top=7").status == 200)
        try RequestLimitsTests.expectRefused(try gateway.get("Maintenance(1)?$expand=PersonCarMaintenance"), naming: "max-results-per-collection", value: 2)

        let get = RequestLimitsTests.get("Person(1)")
        try RequestLimitsTests.expectRefused(try Self.batch(gateway, [get, get, get]), naming: "max-batch-count", value: 2)
        let two = [RequestLimitsTests.newPerson("a"), RequestLimitsTests.newPerson("b")]
        try RequestLimitsTests.expectRefused(try Self.batch(gateway, [two]), naming: "max-changeset-count", value: 1)
        let page = RequestLimitsTests.get("Person?$top=5")
        let bytes = try Self.batch(gateway, [page, page])
        #expect(try RequestLimitsTests.statuses(bytes) == [[200], [400]])
        #expect(bytes.text.contains("(--max-batch-response-bytes 3000)"))

        let deep = try JSONSerialization.data(withJSONObject: RequestLimitsTests.personWithCars(1))
        try RequestLimitsTests.expectRefused(try Self.post(gateway, "Person", String(decoding: deep, as: UTF8.self), contentType: "application/json"),
                                             naming: "max-object-count-on-insert", value: 1)
    }

    @Test func aLimitBelowOneIsRefusedAtStart() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        #expect(throws: (any Error).self) { try Self.serve(folder, ["--max-entities-per-response", "0"]) }
    }

    /// `VmRSS` or `VmHWM` of the process, in bytes.
    static func memory(_ field: String, of pid: Int32) throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw TestFailure("no \(field) in /proc/\(pid)/status")
        }
        return kilobytes * 1024
    }

    /// The issue's `$batch` of 40 amplifying GETs (276 MB of response and 696 MB of RSS before
    /// the limits), and a batch of 80 allowed but large GETs that meets the byte limit of a
    /// batch response: each grows the process by less than 64 MB at its peak.
    @Test(measuresResidentMemory) func aBatchOfAmplifyingGetsKeepsTheProcessSmall() throws {
        let folder = try Self.temporaryFolder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let gateway = try Self.serve(folder, [])
        defer { _ = gateway.stop() }
        let pid = gateway.process.processIdentifier
        // Both worker threads open their connections and caches first.
        for id in 1...20 { #expect(try gateway.get("Person(\(id))?$expand=PersonCar").status == 200) }
        let baseline = try Self.memory("VmRSS", of: pid)
        // The peak is reset, so that VmHWM says what these requests reached (Linux 4.0 and later).
        let cleared = (try? "5".write(toFile: "/proc/\(pid)/clear_refs", atomically: false, encoding: .utf8)) != nil
        let peakReset = try cleared && Self.memory("VmHWM", of: pid) < baseline + (1 << 20)

        let amplifying = RequestLimitsTests.get(TestGateway.encodeQuery(RequestLimitsTests.amplifyingExpand))
        let issueBatch = BatchTests.body(Array(repeating: amplifying, count: 40))
        #expect(issueBatch.utf8.count < 8 * 1024)
        for _ in 1...5 {
            let response = try Self.post(gateway, "$batch", issueBatch, contentType: "multipart/mixed; boundary=batch_test")
            #expect(response.status == 202)
            #expect(try RequestLimitsTests.statuses(response) == Array(repeating: [400], count: 40))
        }
        let afterIssueBatch = try Self.memory("VmRSS", of: pid)
        #expect(afterIssueBatch - baseline < 64 << 20, "RSS grew from \(baseline) to \(afterIssueBatch)")

        let large = RequestLimitsTests.get(TestGateway.encodeQuery("Person?$expand=PersonCar/PersonCarMaintenance/Maintenance"))
        let response = try Self.batch(gateway, Array(repeating: large, count: 80))
        let statuses = try RequestLimitsTests.statuses(response).map { $0[0] }
        #expect(response.body.count <= QueryLimits().maxBatchResponseBytes)
        #expect(statuses.contains(200) && statuses.contains(400))
        let after = try Self.memory("VmRSS", of: pid)
        #expect(after - baseline < 64 << 20, "RSS grew from \(baseline) to \(after)")
        if peakReset {
            let peak = try Self.memory("VmHWM", of: pid)
            #expect(peak - baseline < 64 << 20, "RSS peaked at \(peak) from \(baseline)")
        }
    }
}
