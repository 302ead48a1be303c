import Foundation
import HTTPCore
@testable import ODataHTTP
import Testing

/// API keys, roles and their rules against the real gateway: who gets in (401), who may do what
/// on which set (403) on every path (navigation, `$expand`, `$count`, `$links`, `$batch`), and
/// hidden properties and sets that do not exist for a role, in any payload or error.
@Suite struct AccessRulesTests {
    /// Person 1's SSN (SeedData), which no body a `reader` gets may contain.
    static let secret = "543872934"

    let gateway: TestGateway
    let keys: [String: String]

    static func accessFile() -> (AccessFile, [String: String]) {
        var file = AccessFile(roles: [
            "reader": .init(hide: ["Person.ssn"]),
            "anonymous": .init(sets: ["*": "None", "Car": "AllRead"]),
            // Reads cars one at a time only, and does not see maintenance records at all.
            "lookup": .init(sets: ["*": "AllRead", "Car": "ReadSingle", "PersonCarMaintenance": "None"]),
            "clerk": .init(sets: ["*": "All"], hide: ["Person.ssn"]),
            // Creates people, but not their cars' records; links records to cars it cannot read one by one.
            "appender": .init(sets: ["*": "AllRead", "Person": "AllRead, WriteAppend", "PersonCar": "AllRead"]),
            "linker": .init(sets: ["*": "AllRead", "PersonCar": "All", "Car": "ReadMultiple"]),
        ])
        var keys: [String: String] = [:]
        for role in ["admin", "reader", "editor", "lookup", "clerk", "appender", "linker"] {
            let (key, entry) = APIKey.entry(name: role + "-key", role: role, rateLimit: nil)
            file.keys.append(entry)
            keys[role] = key
        }
        return (file, keys)
    }

    init() throws {
        let (file, keys) = Self.accessFile()
        gateway = try TestGateway(access: file)
        self.keys = keys
    }

    func call(_ target: String, as role: String?, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        try call("GET", target, as: role, headers: headers)
    }

    func call(_ method: String, _ target: String, as role: String?, json: Any? = nil,
              headers: [String: String] = [:]) throws -> RawHTTPResponse {
        var all = headers
        if let role { all["Authorization"] = "Bearer " + keys[role]! }
        if let json { return try gateway.send(method, target, json: json, headers: all) }
        all["Accept"] = all["Accept"] ?? "application/json"
        return try gateway.request(method, target, headers: all)
    }

    func batch(_ operations: [Any], as role: String) throws -> RawHTTPResponse {
        try gateway.send("POST", "$batch", text: BatchTests.body(operations),
                         headers: ["Content-Type": "multipart/mixed; boundary=batch_test", "Authorization": "Bearer " + keys[role]!])
    }

    // MARK: Keys

    /// One key in 64 would start with `-` and read as an option on a command line.
    @Test func noKeyStartsWithADash() {
        let keys = (0..<2_000).map { _ in APIKey.generate() }
        #expect(keys.allSatisfy { $0.count == 43 && $0.first != "-" })
        #expect(Set(keys).count == keys.count)
    }

    @Test func theFileKeepsOnlySaltedHashes() throws {
        let text = try String(contentsOfFile: gateway.accessFilePath, encoding: .utf8)
        for key in keys.values { #expect(!text.contains(key)) }
        let mode = try FileManager.default.attributesOfItem(atPath: gateway.accessFilePath)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let (first, _) = APIKey.entry(name: "a", role: "reader", rateLimit: nil)
        let (second, _) = APIKey.entry(name: "a", role: "reader", rateLimit: nil)
        #expect(first != second && first.count == 43)
    }

    @Test func withoutAValidKeyIs401WithChallengesAndAnODataError() throws {
        var (file, _) = Self.accessFile()
        file.roles["anonymous"] = nil
        let closed = try TestGateway(access: file)
        let anonymous = try RawHTTPClient.send(port: closed.port, target: "/CarDealer.svc/Car(1)", headers: ["Accept": "application/json"])
        #expect(anonymous.status == 401)
        #expect(try anonymous.errorMessage().contains("API key is required"))
        // With an anonymous role, a key that is sent must be valid.
        for headers in [["Authorization": "Bearer wrong"], ["X-API-Key": "wrong"],
                        ["Authorization": "Basic " + Data("reader-key:wrong".utf8).base64EncodedString()],
                        ["Authorization": "Basic " + Data("editor-key:\(keys["reader"]!)".utf8).base64EncodedString()],
                        ["Authorization": "Digest x"]] {
            let response = try call("Person(1)", as: nil, headers: headers)
            #expect(response.status == 401, "\(headers)")
            #expect(response.header("WWW-Authenticate") != nil)
            let document = try #require(try response.json() as? [String: Any])
            let error = document["error"] as? [String: Any]
            #expect(error?["code"] as? String == "Unauthorized")
            #expect(!response.text.contains(Self.secret))
        }
    }

    @Test func aKeyIsAcceptedAsBearerAsXAPIKeyAndAsBasic() throws {
        let key = keys["reader"]!
        for headers in [["Authorization": "Bearer " + key], ["X-API-Key": key],
                        ["Authorization": "Basic " + Data("reader-key:\(key)".utf8).base64EncodedString()]] {
            #expect(try call("Person(1)", as: nil, headers: headers).status == 200, "\(headers)")
        }
    }

    @Test func keysInTheQueryStringAreRefused() throws {
        for parameter in ["api_key", "apikey", "access_token", "API_KEY"] {
            let response = try call("Person(1)?\(parameter)=\(keys["admin"]!)", as: nil)
            #expect(response.status == 400, "\(parameter)")
            #expect(!response.text.contains(keys["admin"]!))
        }
    }

    // MARK: Rights per set

    @Test func aReaderMayNotWriteOnAnyPath() throws {
        let before = try gateway.rowCount("Car")
        let car: [String: Any] = ["make": "Saab", "model": "900", "createStamp": "/Date(0)/"]
        #expect(try call("POST", "Car", as: "reader", json: car).status == 403)
        #expect(try call("PUT", "Car(1)", as: "reader", json: car).status == 403)
        #expect(try call("MERGE", "Car(1)", as: "reader", json: ["model": "x"]).status == 403)
        #expect(try call("DELETE", "Car(1)", as: "reader").status == 403)
        #expect(try call("PUT", "Car(1)/model", as: "reader", json: ["model": "x"]).status == 403)
        #expect(try call("POST", "PersonCar(1)/$links/Car", as: "reader", json: ["uri": gateway.root + "Car(2)"]).status == 403)
        #expect(try call("DELETE", "PersonCar(1)/$links/Car", as: "reader").status == 403)
        let tunnelled = try call("POST", "Car(1)", as: "reader", json: ["model": "x"], headers: ["X-HTTP-Method": "MERGE"])
        #expect(tunnelled.status == 403)
        let message = try tunnelled.errorMessage()
        #expect(message.contains("reader") && message.contains("Car"))
        // Inside a change set too: the operation is refused and nothing is written.
        let response = try batch([[BatchTests.Operation(method: "POST", uri: "Car", body: String(decoding: try JSONSerialization.data(withJSONObject: car), as: UTF8.self))]], as: "reader")
        #expect(response.status == 202)
        #expect(response.text.contains("403"))
        #expect(try gateway.rowCount("Car") == before)
        #expect(try call("POST", "Car", as: "editor", json: car).status == 201)
        #expect(try gateway.rowCount("Car") == before + 1)
    }

    @Test func rightsApplyToPathsExpansionsCountsLinksAndBatchParts() throws {
        // lookup: Car ReadSingle only.
        #expect(try call("Car(1)", as: "lookup").status == 200)
        #expect(try call("Car", as: "lookup").status == 403)
        #expect(try call("Car/$count", as: "lookup").status == 403)
        #expect(try call("Car(1)/model/$value", as: "lookup").status == 200)
        #expect(try call("PersonCar(1)/Car", as: "lookup").status == 200)
        #expect(try call("PersonCar?$expand=Car", as: "lookup").status == 200)
        #expect(try call("PersonCar(1)/$links/Car", as: "lookup").status == 200)
        #expect(try call("Person(1)/PersonCar?$expand=Car", as: "lookup").status == 200)
        #expect(try call("Car(1)/PersonCar", as: "lookup").status == 200)
        #expect(try call("Car", as: "reader").status == 200)
        // linker: Car without ReadSingle; a condition or order through PersonCar/Car reads it.
        #expect(try call(TestGateway.encodeQuery("PersonCar?$filter=Car/make eq 'Ford'"), as: "linker").status == 403)
        #expect(try call(TestGateway.encodeQuery("PersonCar?$orderby=Car/make"), as: "linker").status == 403)
        #expect(try call(TestGateway.encodeQuery("PersonCar?$filter=Car/make eq 'Ford'"), as: "reader").status == 200)
        let response = try batch([BatchTests.Operation(method: "GET", uri: "Car(1)"), BatchTests.Operation(method: "GET", uri: "Car")], as: "lookup")
        #expect(response.status == 202)
        #expect(response.text.contains("HTTP/1.1 200") && response.text.contains("HTTP/1.1 403"))
    }

    @Test func deepInsertsAndBindingsNeedTheRightsOfTheSetsTheyName() throws {
        let (people, records) = (try gateway.rowCount("Person"), try gateway.rowCount("PersonCar"))
        let person: [String: Any] = ["firstName": "A", "lastName": "B", "createDate": "/Date(0)/"]
        var deep = person
        deep["PersonCar"] = [["createStamp": "/Date(0)/", "Car": ["__metadata": ["uri": gateway.root + "Car(1)"]]]]
        let refused = try call("POST", "Person", as: "appender", json: deep)
        #expect(refused.status == 403)
        #expect(try refused.errorMessage().contains("PersonCar"))
        #expect(try gateway.rowCount("Person") == people && (try gateway.rowCount("PersonCar")) == records)
        #expect(try call("POST", "Person", as: "appender", json: person).status == 201)
        let record: [String: Any] = ["createStamp": "/Date(0)/", "Car": ["__metadata": ["uri": gateway.root + "Car(1)"]],
                                     "Person": ["__metadata": ["uri": gateway.root + "Person(1)"]]]
        #expect(try call("POST", "PersonCar", as: "linker", json: record).status == 403)
        #expect(try gateway.rowCount("PersonCar") == records)
        #expect(try call("POST", "PersonCar", as: "editor", json: record).status == 201)
    }

    // MARK: What a role cannot see does not exist

    @Test func aHiddenPropertyIsInNoPayloadAndNamingItIsAnUnknownName() throws {
        #expect(try call("Person(1)", as: "admin").text.contains(Self.secret))
        for target in ["$metadata", "Person(1)", "Person", "Person?$format=atom", "PersonCar(1)?$expand=Person",
                       "Car(1)/PersonCar?$expand=Person", "PersonCar(1)/Person", "Person?$select=firstName,lastName",
                       "Person?$orderby=lastName&$top=2&$inlinecount=allpages", "Person?$filter=firstName eq 'Bob'"] {
            let response = try call(TestGateway.encodeQuery(target), as: "reader",
                                    headers: target.contains("atom") || target.contains("metadata") ? ["Accept": "*/*"] : [:])
            #expect(response.status == 200, "\(target)")
            #expect(!response.text.contains(Self.secret) && !response.text.contains("ssn"), "\(target)")
        }
        // Named anywhere, it answers exactly as a name that never existed does.
        for (hidden, unknown) in [("Person?$filter=ssn eq '543872934'", "Person?$filter=nosuch eq '543872934'"),
                                  ("Person?$filter=startswith(ssn,'5')", "Person?$filter=startswith(nosuch,'5')"),
                                  ("PersonCar?$filter=Person/ssn eq '1'", "PersonCar?$filter=Person/nosuch eq '1'"),
                                  ("Person?$orderby=ssn", "Person?$orderby=nosuch"),
                                  ("Person?$select=ssn", "Person?$select=nosuch"),
                                  ("PersonCar?$expand=Person&$select=Person/ssn", "PersonCar?$expand=Person&$select=Person/nosuch"),
                                  ("Person(1)/ssn", "Person(1)/nosuch"), ("Person(1)/ssn/$value", "Person(1)/nosuch/$value")] {
            let refused = try call(TestGateway.encodeQuery(hidden), as: "reader")
            let never = try call(TestGateway.encodeQuery(unknown), as: "reader")
            #expect(refused.status == never.status && [400, 404].contains(refused.status), "\(hidden)")
            #expect(try refused.errorMessage().replacingOccurrences(of: "ssn", with: "nosuch") == (try never.errorMessage()), "\(hidden)")
            #expect(!refused.text.contains(Self.secret))
        }
        // In a body: a clerk (who may write) cannot set it; in a batch part it is as unknown.
        let created = try call("POST", "Person", as: "clerk", json: ["firstName": "A", "lastName": "B", "ssn": "1", "createDate": "/Date(0)/"])
        let never = try call("POST", "Person", as: "clerk", json: ["firstName": "A", "lastName": "B", "nosuch": "1", "createDate": "/Date(0)/"])
        #expect(created.status == 400 && never.status == 400)
        #expect(try created.errorMessage().replacingOccurrences(of: "ssn", with: "nosuch") == (try never.errorMessage()))
        let response = try batch([BatchTests.Operation(method: "GET", uri: "Person(1)"),
                                  BatchTests.Operation(method: "GET", uri: "Person?$filter=ssn%20eq%20'543872934'")], as: "reader")
        #expect(response.text.contains("HTTP/1.1 200") && response.text.contains("HTTP/1.1 400"))
        #expect(!response.text.contains(Self.secret) && !response.text.contains("\"ssn\""))
    }

    @Test func writesOfARoleLeaveWhatItCannotSeeAsItIs() throws {
        let person: [String: Any] = ["firstName": "Robert", "lastName": "Samson", "createDate": "/Date(1257008908440)/"]
        #expect(try call("PUT", "Person(1)", as: "clerk", json: person).status == 204)
        #expect(try call("MERGE", "Person(1)", as: "clerk", json: ["lastName": "S"]).status == 204)
        let seen = try #require(try call("Person(1)", as: "admin").d() as? [String: Any])
        #expect(seen["firstName"] as? String == "Robert")
        #expect(seen["ssn"] as? String == Self.secret)
    }

    @Test func anETagDoesNotChangeWithWhatTheRoleCannotSee() throws {
        let before = try #require(try call("Person(1)", as: "reader").header("ETag"))
        #expect(try call("MERGE", "Person(1)", as: "admin", json: ["ssn": "111111111"]).status == 204)
        let after = try call("Person(1)", as: "reader")
        #expect(after.header("ETag") == before)
        #expect(!after.text.contains("111111111"))
        // A stale ETag's 412 names nothing hidden.
        #expect(try call("MERGE", "Person(1)", as: "clerk", json: ["lastName": "T"]).status == 204)
        let stale = try call("MERGE", "Person(1)", as: "clerk", json: ["lastName": "U"], headers: ["If-Match": before])
        #expect(stale.status == 412)
        #expect(!stale.text.contains("111111111") && !stale.text.contains("ssn"))
    }

    @Test func aSetWithNoRightsDoesNotExistForTheRole() throws {
        let document = try call("", as: "lookup", headers: ["Accept": "application/json"])
        #expect(document.status == 200 && !document.text.contains("PersonCarMaintenance"))
        let metadata = try call("$metadata", as: "lookup", headers: ["Accept": "*/*"])
        #expect(metadata.status == 200 && !metadata.text.contains("PersonCarMaintenance") && metadata.text.contains("PersonCar"))
        for (hidden, unknown) in [("PersonCarMaintenance", "NoSuchSet"), ("PersonCarMaintenance(1)", "NoSuchSet(1)"),
                                  ("PersonCar(1)/PersonCarMaintenance", "PersonCar(1)/NoSuchSet"),
                                  ("PersonCar?$expand=PersonCarMaintenance", "PersonCar?$expand=NoSuchSet"),
                                  ("PersonCar(1)/$links/PersonCarMaintenance", "PersonCar(1)/$links/NoSuchSet"),
                                  ("Maintenance?$expand=PersonCarMaintenance/PersonCar", "Maintenance?$expand=NoSuchSet/PersonCar")] {
            let refused = try call(hidden, as: "lookup")
            let never = try call(unknown, as: "lookup")
            #expect(refused.status == never.status && [400, 404].contains(refused.status), "\(hidden)")
            #expect(try refused.errorMessage().replacingOccurrences(of: "PersonCarMaintenance", with: "NoSuchSet") == (try never.errorMessage()), "\(hidden)")
        }
        #expect(try call("PersonCarMaintenance", as: "reader").status == 200)
        // The service operations over the hidden set do not exist for the role either.
        #expect(!metadata.text.contains("CarsDueForService") && !metadata.text.contains("TotalMaintenanceCost"))
        for operation in ["CarsDueForService?miles=60000", "TotalMaintenanceCost?personID=1"] {
            let refused = try call(operation, as: "lookup")
            let never = try call("NoSuchOperation?miles=60000", as: "lookup")
            #expect(refused.status == never.status && refused.status == 404, "\(operation)")
            #expect(try call(operation, as: "reader").status == 200, "\(operation)")
        }
    }

    @Test func theAnonymousRoleSaysWhatCallersWithoutAKeyMayDo() throws {
        #expect(try call("Car", as: nil).status == 200)
        #expect(try call("Person", as: nil).status == 404)
        let write = try call("POST", "Car", as: nil, json: ["make": "Saab", "model": "900", "createStamp": "/Date(0)/"])
        #expect(write.status == 401)
        #expect(write.header("WWW-Authenticate") != nil)
    }

    // MARK: Reloads and rates

    @Test func aReloadAppliesNewKeysAndRevocations() throws {
        var file = try AccessFile.read(path: gateway.accessFilePath)
        let (key, entry) = APIKey.entry(name: "late", role: "editor", rateLimit: nil)
        file.keys.append(entry)
        try file.write(path: gateway.accessFilePath)
        #expect(try call("Person(1)", as: nil, headers: ["X-API-Key": key]).status == 401)
        try gateway.access!.reload()
        #expect(try call("Person(1)", as: nil, headers: ["X-API-Key": key]).status == 200)
        file.keys.removeAll { $0.name == "late" || $0.name == "reader-key" }
        try file.write(path: gateway.accessFilePath)
        try gateway.access!.reload()
        #expect(try call("Person(1)", as: nil, headers: ["X-API-Key": key]).status == 401)
        #expect(try call("Person(1)", as: "reader").status == 401)
        #expect(try call("Person(1)", as: "editor").status == 200)
        // A file that cannot be applied leaves the rules in force.
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: gateway.accessFilePath))
        #expect(throws: AccessFileError.self) { try gateway.access!.reload() }
        #expect(try call("Person(1)", as: "editor").status == 200)
    }

    @Test func pastItsRateAKeyGets429WithRetryAfter() throws {
        var (file, keys) = Self.accessFile()
        file.roles["reader"]?.rateLimit = 2
        let gateway = try TestGateway(access: file)
        var statuses: [Int] = []
        var retryAfter: String?
        for _ in 0..<4 {
            let response = try RawHTTPClient.send(port: gateway.port, target: "/CarDealer.svc/Car(1)", headers: ["Authorization": "Bearer " + keys["reader"]!])
            statuses.append(response.status)
            if response.status == 429 { retryAfter = response.header("Retry-After") }
        }
        #expect(statuses.prefix(2) == [200, 200])
        #expect(statuses.last == 429)
        #expect(retryAfter == "1")
        // Another key has its own budget.
        #expect(try RawHTTPClient.send(port: gateway.port, target: "/CarDealer.svc/Car(1)", headers: ["Authorization": "Bearer " + keys["editor"]!]).status == 200)
    }

    @Test func callersWithoutAKeyAreCountedByTheirAddress() throws {
        var (file, _) = Self.accessFile()
        file.roles["anonymous"]?.rateLimit = 1
        let gateway = try TestGateway(access: file)
        let statuses = try (0..<3).map { _ in try RawHTTPClient.send(port: gateway.port, target: "/CarDealer.svc/Car(1)").status }
        #expect(statuses.first == 200 && statuses.last == 429, "\(statuses)")
        // Without an access file, --rate-limit counts every caller by address.
        let open = try TestGateway { $0.rateLimit = 1 }
        let answers = try (0..<3).map { _ in try RawHTTPClient.send(port: open.port, target: "/CarDealer.svc/Car(1)") }
        #expect(answers.first?.status == 200 && answers.last?.status == 429)
        #expect(answers.last?.header("Retry-After") == "1")
        #expect(try answers.last!.errorMessage().contains("Too many requests"))
    }

    @Test func aFileWithAMistakeIsRefusedWithItsReason() throws {
        let model = gateway.model
        let cases: [(AccessFile, String)] = [
            (AccessFile(roles: ["x": .init(sets: ["Truck": "AllRead"])]), "unknown entity set Truck"),
            (AccessFile(roles: ["x": .init(sets: ["Car": "ReadEverything"])]), "is not an EntitySetRights"),
            (AccessFile(roles: ["x": .init(hide: ["Person.personID"])]), "it is a key"),
            (AccessFile(roles: ["x": .init(hide: ["Person.shoeSize"])]), "has no property shoeSize"),
            (AccessFile(roles: ["x": .init(rows: ["Car": "make eq 'Ford'"])]), "role x: rows of Car: the role cannot see Car"),
            (AccessFile(roles: ["x": .init(sets: ["*": "AllRead"], rows: ["Car": "make eq"])]), "role x: rows of Car: 'make eq' is not a filter of Car"),
            (AccessFile(roles: ["admin": .init()]), "built in"),
            (AccessFile(keys: [AccessFile.Key(name: "k", role: "boss", created: "", salt: "AA==", hmacSHA256: "AA==")]), "unknown role boss"),
        ]
        for (file, reason) in cases {
            let path = gateway.directory.appendingPathComponent("bad.json").path
            try file.write(path: path)
            do {
                _ = try AccessControl(path: path, schema: TestGateway.carDealerSchema, model: model)
                Issue.record("accepted: \(reason)")
            } catch {
                #expect("\(error)".contains(reason), "\(error)")
            }
        }
    }
}

@Suite struct RateLimiterTests {
    @Test func aBucketHoldsASecondOfRequestsAndRefillsAtItsRate() {
        let limiter = RateLimiter()
        #expect(limiter.take("a", rate: 1, now: 100) == nil)
        #expect(limiter.take("a", rate: 1, now: 100.1) == 1)
        #expect(limiter.take("b", rate: 1, now: 100.1) == nil)
        #expect(limiter.take("a", rate: 1, now: 101.2) == nil)
        #expect(limiter.take("c", rate: 0.25, now: 100) == nil)
        #expect(limiter.take("c", rate: 0.25, now: 101) == 3)
    }
}
