import Foundation
@testable import ODataHTTP
import Testing

/// Row filters against the real gateway on each engine: a role that sees only the cars made
/// after 2005 gets exactly those on every path, never a trace of another car, and cannot
/// create or move a car outside its filter.
@Suite struct RowFilterTests {
    @Test(arguments: TestGateway.engines) func everyReadPathSeesOnlyTheFilteredRows(engine: TestGateway.Engine) throws {
        let test = try RowFilteredGateway(engine: engine)
        let (visible, hidden) = try test.carKeys()
        #expect(visible.count == 40 && hidden.count == 50)
        let set = try test.call("Car?$inlinecount=allpages&$orderby=manufactureDate", as: "recent")
        #expect(set.status == 200)
        #expect(Set(test.carIDs(in: set)) == visible)
        #expect(set.text.contains("\"__count\": \"40\"") || set.text.contains("\"__count\":\"40\""))
        #expect(try test.call("Car/$count", as: "recent").text == "40")
        #expect(try test.call("Car/$count?$filter=make eq 'Ford'", as: "recent").text
                == (try test.call("Car/$count?$filter=make eq 'Ford' and \(RowFilteredGateway.filter)", as: "admin")).text)
        // Car 2 (2004) is hidden, car 4 (2006) is not; PersonCar 1 is car 2's, PersonCar 3 car 4's.
        #expect(hidden.contains(2) && visible.contains(4))
        #expect(try test.call("Car(2)", as: "recent").status == 404)
        #expect(try test.call("Car(2)/model/$value", as: "recent").status == 404)
        #expect(try test.call("Car(2)/PersonCar", as: "recent").status == 404)
        #expect(try test.call("Car(2)/$links/PersonCar", as: "recent").status == 404)
        #expect(try test.call("Car(4)", as: "recent").status == 200)
        #expect(try test.call("PersonCar(1)/Car", as: "recent").status == 404)
        #expect(try test.call("PersonCar(3)/Car", as: "recent").status == 200)
        let traces = try test.hiddenTraces(hidden)
        #expect(traces.count > 50)
        for target in ["Car", "Car?$orderby=model desc&$top=100", "Car?$select=model,manufactureDate", "Car?$format=atom",
                       "Car(2)?$select=model", "Car(2)?$expand=PersonCar", "Car(2)/PersonCar/$count", "Car(2)/PersonCar(1)",
                       "Car(2)/PersonCar?$inlinecount=allpages", "Car(2)/PersonCar(1)/Person", "Car(2)/$links/PersonCar",
                       "Car(2)/model/$value", "Car(2)/manufactureDate", "PersonCar(1)/Car", "PersonCar(1)/Car/model/$value",
                       "PersonCar(1)/Car/PersonCar", "PersonCar(1)/Car/$links/PersonCar", "PersonCar(1)/$links/Car",
                       "PersonCar(1)?$expand=Car", "PersonCar?$expand=Car", "Person?$expand=PersonCar/Car",
                       "Person(1)?$expand=PersonCar/Car", "Person(1)/PersonCar?$expand=Car",
                       "Person(1)?$expand=PersonCar/Car/PersonCar/PersonCarMaintenance",
                       "Person?$expand=PersonCar/Car/PersonCar/Person&$inlinecount=allpages",
                       "PersonCarMaintenance?$expand=PersonCar/Car&$top=200", "PersonCar?$filter=Car/make eq 'Ford'&$expand=Car",
                       "PersonCar?$orderby=Car/model desc&$expand=Car", "PersonCar?$select=Car/model&$expand=Car",
                       "PersonCar?$filter=Car/model eq 'Explorer'", "CarsDueForService?miles=60000&$expand=PersonCar/Car",
                       "Person(1)/PersonCar?$expand=Car&$format=atom"] {
            let response = try test.call(target, as: "recent")
            #expect([200, 404].contains(response.status), "\(target): \(response.status) \(response.text.prefix(300))")
            let named = Set(test.carIDs(in: response))
            #expect(named.isDisjoint(with: hidden), "\(target): \(named.intersection(hidden).sorted())")
            let leaked = traces.filter { response.text.contains($0) }
            #expect(leaked.isEmpty, "\(target): \(leaked)")
        }
        // A hidden car answers exactly as a car that does not exist.
        for (hiddenTarget, missingTarget) in [("Car(2)", "Car(99999)"), ("Car(2)/PersonCar", "Car(99999)/PersonCar"),
                                              ("Car(2)/PersonCar/$count", "Car(99999)/PersonCar/$count"),
                                              ("Car(2)/$links/PersonCar", "Car(99999)/$links/PersonCar"),
                                              ("Car(2)/model/$value", "Car(99999)/model/$value"),
                                              ("Car(2)/PersonCar(1)", "Car(99999)/PersonCar(1)")] {
            try test.expectSameAnswer(test.call(hiddenTarget, as: "recent"), test.call(missingTarget, as: "recent"),
                                      hiddenKey: "Car(2)", missingKey: "Car(99999)", hiddenTarget)
        }
        // $links needs one source entity: refused the same for every role, filter or not.
        #expect(try test.call("PersonCar/$links/Car", as: "recent").status == 400)
        #expect(try test.call("PersonCar/$links/Car", as: "recent").text == (try test.call("PersonCar/$links/Car", as: "admin")).text)
        // The PersonCars of hidden cars sort as without a car, by key: the hidden models do not order them.
        let all = try Set(test.personCarIDs(in: test.call("PersonCar?$select=personCarID", as: "admin")))
        let withVisibleCar = try Set(test.personCarIDs(in: test.call("PersonCar?$select=personCarID&$filter=year(Car/manufactureDate) gt 2005", as: "admin")))
        let withHiddenCar = all.subtracting(withVisibleCar)
        #expect(!withHiddenCar.isEmpty && !withVisibleCar.isEmpty)
        let ordered = try test.personCarIDs(in: test.call("PersonCar?$select=personCarID&$orderby=Car/model", as: "recent"))
        #expect(Array(ordered.prefix(withHiddenCar.count)) == withHiddenCar.sorted())
        #expect(try test.call("PersonCar(3)/$links/Car", as: "recent").text.contains("Car(4)"))
        // A condition through navigation meets only the cars the role sees.
        let through = "PersonCar/$count?$filter=Car/make eq 'Ford'"
        #expect(try test.call(through, as: "recent").text
                == (try test.call(through + " and year(Car/manufactureDate) gt 2005", as: "admin")).text)
        #expect(try test.call(through, as: "recent").text != (try test.call(through, as: "admin")).text)
        // $batch parts read as the role.
        let batch = try test.gateway.send("POST", "$batch", text: BatchTests.body([BatchTests.Operation(method: "GET", uri: "Car(2)"),
                                                                                   BatchTests.Operation(method: "GET", uri: "Car(4)")]),
                                          headers: ["Content-Type": "multipart/mixed; boundary=batch_test", "Authorization": "Bearer " + test.keys["recent"]!])
        #expect(batch.text.contains("HTTP/1.1 404") && batch.text.contains("HTTP/1.1 200"))
        #expect(test.carIDs(in: batch).allSatisfy { !hidden.contains($0) })
        #expect(traces.allSatisfy { !batch.text.contains($0) })
        // ETags: a hidden car's tag, right or wrong, meets 404 as a missing car's does, never 412 or 304.
        let tag = try #require(try test.call("Car(2)", as: "admin").header("ETag"))
        for (method, headers) in [("GET", ["If-None-Match": tag]), ("GET", ["If-Match": "W/\"0\""]),
                                  ("MERGE", ["If-Match": tag]), ("MERGE", ["If-Match": "W/\"0\""]),
                                  ("DELETE", ["If-Match": tag]), ("DELETE", ["If-Match": "W/\"0\""])] {
            let json: Any? = method == "MERGE" ? ["model": "x"] : nil
            let onHidden = try test.call(method, "Car(2)", as: "recent", json: json, headers: headers)
            #expect(onHidden.status == 404, "\(method) \(headers)")
            try test.expectSameAnswer(onHidden, test.call(method, "Car(99999)", as: "recent", json: json, headers: headers),
                                      hiddenKey: "Car(2)", missingKey: "Car(99999)", "\(method) \(headers)")
            #expect(!onHidden.text.contains(tag))
        }
        // On a car the role sees, a wrong tag is 412 as ever.
        let stale = try test.call("MERGE", "Car(4)", as: "recent", json: ["model": "x"], headers: ["If-Match": "W/\"0\""])
        #expect(stale.status == 412)
        #expect(traces.allSatisfy { !stale.text.contains($0) } && !stale.text.contains(tag))
        #expect(try test.call("Car(2)", as: "admin").header("ETag") == tag)
    }

    @Test(arguments: TestGateway.engines) func aWriteThatWouldPutARowOutsideTheFilterIs403AndWritesNothing(engine: TestGateway.Engine) throws {
        let test = try RowFilteredGateway(engine: engine)
        let cars = try test.gateway.rowCount("Car")
        let old: [String: Any] = ["make": "Saab", "model": "900", "manufactureDate": "/Date(915148800000)/", "createStamp": "/Date(0)/"]
        let created = try test.call("POST", "Car", as: "recent", json: old)
        #expect(created.status == 403)
        #expect(!created.text.contains("900"))
        #expect(try test.gateway.rowCount("Car") == cars)
        var new = old
        new["manufactureDate"] = "/Date(1262304000000)/"
        #expect(try test.call("POST", "Car", as: "recent", json: new).status == 201)
        #expect(try test.gateway.rowCount("Car") == cars + 1)
        // Moving a visible car out of the filter, by MERGE or PUT, is refused and changes nothing.
        let before = try test.call("Car(4)", as: "admin").text
        #expect(try test.call("MERGE", "Car(4)", as: "recent", json: ["manufactureDate": "/Date(915148800000)/"]).status == 403)
        #expect(try test.call("PUT", "Car(4)", as: "recent", json: old).status == 403)
        #expect(try test.call("PUT", "Car(4)/manufactureDate", as: "recent", json: ["manufactureDate": "/Date(915148800000)/"]).status == 403)
        #expect(try test.call("Car(4)", as: "admin").text == before)
        #expect(try test.call("MERGE", "Car(4)", as: "recent", json: ["model": "Ion 2"]).status == 204)
        // A hidden car cannot be changed, deleted, or linked to: it is not found.
        let hidden = try test.call("Car(2)", as: "admin").text
        #expect(try test.call("MERGE", "Car(2)", as: "recent", json: ["model": "x"]).status == 404)
        #expect(try test.call("DELETE", "Car(2)", as: "recent").status == 404)
        #expect(try test.call("Car(2)", as: "admin").text == hidden)
        try test.expectSameAnswer(test.call("MERGE", "Car(2)", as: "recent", json: ["model": "x"]),
                                  test.call("MERGE", "Car(99999)", as: "recent", json: ["model": "x"]),
                                  hiddenKey: "Car(2)", missingKey: "Car(99999)", "MERGE")
        try test.expectSameAnswer(test.call("PUT", "Car(2)/model", as: "recent", json: ["model": "x"]),
                                  test.call("PUT", "Car(99999)/model", as: "recent", json: ["model": "x"]),
                                  hiddenKey: "Car(2)", missingKey: "Car(99999)", "PUT a property")
        // Linking to a hidden car, or from one, answers as for a car that does not exist.
        let records = try test.gateway.rowCount("PersonCar")
        func linkTo(_ car: String) throws -> RawHTTPResponse {
            try test.call("PUT", "PersonCar(3)/$links/Car", as: "recent", json: ["uri": test.gateway.root + car])
        }
        let link = try linkTo("Car(2)")
        #expect(link.status >= 400)
        try test.expectSameAnswer(link, linkTo("Car(99999)"), hiddenKey: "Car(2)", missingKey: "Car(99999)", "PUT $links")
        #expect(try test.call("PersonCar(3)/$links/Car", as: "admin").text.contains("Car(4)"))
        func linkFrom(_ car: String) throws -> RawHTTPResponse {
            try test.call("POST", car + "/$links/PersonCar", as: "recent", json: ["uri": test.gateway.root + "PersonCar(3)"])
        }
        try test.expectSameAnswer(linkFrom("Car(2)"), linkFrom("Car(99999)"), hiddenKey: "Car(2)", missingKey: "Car(99999)", "POST $links")
        try test.expectSameAnswer(test.call("DELETE", "Car(2)/$links/PersonCar(1)", as: "recent"),
                                  test.call("DELETE", "Car(99999)/$links/PersonCar(1)", as: "recent"),
                                  hiddenKey: "Car(2)", missingKey: "Car(99999)", "DELETE $links")
        #expect(try test.call("PersonCar(3)/$links/Car", as: "admin").text.contains("Car(4)"))
        #expect(try test.call("PersonCar(1)/$links/Car", as: "admin").text.contains("Car(2)"))
        func bound(_ car: String) -> [String: Any] {
            ["createStamp": "/Date(0)/", "Car": ["__metadata": ["uri": test.gateway.root + car]],
             "Person": ["__metadata": ["uri": test.gateway.root + "Person(1)"]]]
        }
        let boundToHidden = try test.call("POST", "PersonCar", as: "recent", json: bound("Car(2)"))
        #expect(boundToHidden.status >= 400)
        try test.expectSameAnswer(boundToHidden, test.call("POST", "PersonCar", as: "recent", json: bound("Car(99999)")),
                                  hiddenKey: "Car(2)", missingKey: "Car(99999)", "binding")
        let underHidden: [String: Any] = ["createStamp": "/Date(0)/", "Person": ["__metadata": ["uri": test.gateway.root + "Person(1)"]]]
        try test.expectSameAnswer(test.call("POST", "Car(2)/PersonCar", as: "recent", json: underHidden),
                                  test.call("POST", "Car(99999)/PersonCar", as: "recent", json: underHidden),
                                  hiddenKey: "Car(2)", missingKey: "Car(99999)", "insert through navigation")
        #expect(try test.gateway.rowCount("PersonCar") == records)
        // A deep insert of an old car under a new record is refused whole.
        var deep = bound("Car(4)")
        deep["Car"] = old
        #expect(try test.call("POST", "PersonCar", as: "recent", json: deep).status == 403)
        #expect(try test.gateway.rowCount("PersonCar") == records && (try test.gateway.rowCount("Car")) == cars + 1)
        // In a change set: the part is refused and the change set rolled back.
        let body = String(decoding: try JSONSerialization.data(withJSONObject: old), as: UTF8.self)
        let newBody = String(decoding: try JSONSerialization.data(withJSONObject: new), as: UTF8.self)
        let batch = try test.gateway.send("POST", "$batch", text: BatchTests.body([[BatchTests.Operation(method: "POST", uri: "Car", body: newBody),
                                                                                    BatchTests.Operation(method: "POST", uri: "Car", body: body)]]),
                                          headers: ["Content-Type": "multipart/mixed; boundary=batch_test", "Authorization": "Bearer " + test.keys["recent"]!])
        #expect(batch.text.contains("HTTP/1.1 403"))
        #expect(try test.gateway.rowCount("Car") == cars + 1)
    }

    @Test(arguments: TestGateway.engines) func aDeleteDoesNotCountTheDependentsAFilterHides(engine: TestGateway.Engine) throws {
        let test = try RowFilteredGateway(engine: engine)
        // Car 5 is person 1's (PersonCar 2), car 4 person 4's (PersonCar 3, hidden from `mine`).
        #expect(try test.call("Car(5)/PersonCar/$count", as: "mine").text == "1")
        #expect(try test.call("Car(4)/PersonCar/$count", as: "mine").text == "0")
        let blockedByHidden = try test.call("DELETE", "Car(4)", as: "mine")
        #expect(blockedByHidden.status == 409)
        #expect(!blockedByHidden.text.contains("1 PersonCar"))
        try test.expectSameAnswer(blockedByHidden, test.call("DELETE", "Car(5)", as: "mine"), hiddenKey: "Car(4)", missingKey: "Car(5)",
                                  "a delete blocked by hidden dependents")
        #expect(try test.call("Car(4)", as: "admin").status == 200 && (try test.call("Car(5)", as: "admin")).status == 200)
        // Without a filter on the dependents the schema's own answer stands.
        #expect(try test.call("DELETE", "Car(4)", as: "recent").text.contains("1 PersonCar"))
    }

    @Test(arguments: TestGateway.engines) func serviceOperationsSeeOnlyTheFilteredRows(engine: TestGateway.Engine) throws {
        let test = try RowFilteredGateway(engine: engine)
        // Person 4's maintenance goes through PersonCar 3, which `mine` does not see.
        let ofPerson4 = try test.call("TotalMaintenanceCost?personID=4", as: "mine")
        #expect(ofPerson4.status == 200)
        #expect(ofPerson4.text == (try test.call("TotalMaintenanceCost?personID=99999", as: "mine")).text)
        #expect(ofPerson4.text != (try test.call("TotalMaintenanceCost?personID=4", as: "admin")).text)
        #expect(try test.call("TotalMaintenanceCost?personID=1", as: "mine").text == (try test.call("TotalMaintenanceCost?personID=1", as: "admin")).text)
        let due = try test.call("CarsDueForService?miles=1000000&$expand=PersonCar", as: "mine")
        #expect(due.status == 200)
        #expect(Set(test.personCarIDs(in: due)).isSubset(of: [1, 2]))
        #expect(!test.personCarIDs(in: due).isEmpty)
    }

    @Test(arguments: TestGateway.engines) func aFilterThroughNavigationHidesOnEveryLevel(engine: TestGateway.Engine) throws {
        let test = try RowFilteredGateway(engine: engine)
        // `mine` sees PersonCar 1 and 2 (person 1's); PersonCar 3 is person 4's.
        let all = try Set(test.personCarIDs(in: test.call("PersonCar?$select=personCarID", as: "admin")))
        #expect(try Set(test.personCarIDs(in: test.call("PersonCar", as: "mine"))) == [1, 2])
        #expect(try test.call("PersonCar/$count", as: "mine").text == "2")
        #expect(try test.call("PersonCar(3)", as: "mine").status == 404)
        #expect(try test.call("Person(4)/PersonCar/$count", as: "mine").text == "0")
        for target in ["Person(4)/PersonCar", "Person(4)?$expand=PersonCar/Car", "Person?$expand=PersonCar/PersonCarMaintenance",
                       "Car(4)?$expand=PersonCar", "Car(4)/PersonCar", "Car?$expand=PersonCar/Person",
                       "PersonCarMaintenance?$expand=PersonCar/Car", "PersonCarMaintenance?$expand=PersonCar/Person,Maintenance",
                       "Maintenance?$expand=PersonCarMaintenance/PersonCar", "Car(4)/$links/PersonCar",
                       "PersonCarMaintenance?$orderby=PersonCar/createStamp&$filter=PersonCar/createStamp ne null"] {
            let response = try test.call(target, as: "mine")
            #expect(response.status == 200, "\(target): \(response.text.prefix(300))")
            #expect(Set(test.personCarIDs(in: response)).isSubset(of: [1, 2]), "\(target)")
        }
        #expect(all.count > 2)
    }

    /// A row filter's values are written into its SQL as literals, where `$filter` binds them:
    /// strings with quotes, decimals, dates and nulls must mean the same on each engine.
    @Test(arguments: TestGateway.engines) func aFilterOfEveryLiteralKindAdmitsWhatTheSameFilterFinds(engine: TestGateway.Engine) throws {
        let filters = ["Maintenance": "laborHours gt 1.5m and category ne 'O''Brien' and intervalMiles ne null",
                       "PersonCarMaintenance": "serviceDate ge datetime'2005-01-01T00:00:00' and cost lt 250.25m and technician ne 'x''y\\'",
                       "Person": "createDate gt datetime'2000-01-01T00:00' and (lastName eq 'Smith' or substringof('a', firstName))",
                       "Car": "make eq 'Ford' or manufactureDate eq null or round(1.25m) eq 2m"]
        var file = AccessFile(roles: ["literal": .init(sets: ["*": "AllRead"], rows: filters)])
        let (key, entry) = APIKey.entry(name: "literal-key", role: "literal", rateLimit: nil)
        let (adminKey, adminEntry) = APIKey.entry(name: "admin-key", role: "admin", rateLimit: nil)
        file.keys += [entry, adminEntry]
        let gateway = try TestGateway(engine: engine, access: file)
        func count(_ target: String, _ key: String) throws -> String {
            try gateway.request("GET", TestGateway.encodeQuery(target), headers: ["Authorization": "Bearer " + key]).text
        }
        for (set, filter) in filters {
            let admitted = try count(set + "/$count", key)
            #expect(admitted == (try count(set + "/$count?$filter=" + filter, adminKey)), "\(set)")
            #expect(admitted != (try count(set + "/$count", adminKey)), "\(set): the filter hides nothing")
            #expect(Int(admitted) ?? 0 > 0, "\(set): the filter admits nothing")
        }
    }

    /// Roles, filtered or not, read over each thread's one connection: nothing of a role's
    /// filters lives on it, so the database sees as many readers as the gateway has threads.
    @Test(.enabled(if: TestGateway.engines.contains(.postgresql))) func everyRoleReadsOverTheThreadsOneConnection() throws {
        let test = try RowFilteredGateway(engine: .postgresql)
        let database = try test.gateway.openConnection()
        func backends() throws -> Int64 {
            let rows = try database.statement("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()").rows([])
            guard case .integer(let count)? = rows.first?.first else { throw TestFailure("no count") }
            return count
        }
        let before = try backends()
        for _ in 0..<6 {
            for role in ["admin", "recent", "mine"] {
                #expect(try test.call("Car(4)", as: role).status == 200)
            }
        }
        // Two threads: at most two readers more than before the reads (the writers were there).
        #expect(try backends() - before <= 2)
        #expect(try test.call("Car(2)", as: "recent").status == 404 && (try test.call("Car(2)", as: "admin")).status == 200)
    }

    @Test func rowFiltersAreCheckedAgainstTheRolesModelAtStart() throws {
        // Each mistake stops the start with an error that names the role, the set and the problem.
        let mistakes: [(role: AccessFile.Role, problem: String)] = [
            (.init(sets: ["*": "AllRead"], rows: ["Nosuch": "true"]), "unknown entity set Nosuch"),
            (.init(sets: ["*": "AllRead"], rows: ["Car": "nosuch eq 1"]), "nosuch"),
            (.init(sets: ["*": "AllRead"], rows: ["Car": "make"]), "is not a filter"),
            (.init(sets: ["*": "AllRead"], rows: ["Car": "make eq 'Ford'", "PersonCar": "Car/make eq 'Ford'"]), "has a row filter of its own"),
            (.init(sets: ["*": "AllRead", "Car": "None"], rows: ["Car": "true"]), "cannot see Car"),
            (.init(sets: ["*": "AllRead"], hide: ["Car.model"], rows: ["Car": "model eq 'Ion'"]), "names Car.model, which the role cannot see"),
            (.init(sets: ["*": "AllRead"], hide: ["Person.ssn"], rows: ["PersonCar": "Person/ssn eq '1'"]), "names Person.ssn"),
            (.init(sets: ["*": "AllRead", "Person": "None"], rows: ["PersonCar": "Person/firstName eq 'A'"]), "goes to Person, which the role cannot see"),
        ]
        for (role, problem) in mistakes {
            let file = AccessFile(roles: ["r": role])
            let error = #expect(throws: AccessFileError.self, "\(role)") { try TestGateway(access: file) }
            let message = error.map { "\($0)" } ?? ""
            #expect(message.contains("role r") && message.contains("rows of ") && message.contains(problem), "\(message)")
        }
        // A filter through navigation, over what the role sees, is accepted.
        let accepted = AccessFile(roles: ["r": .init(sets: ["*": "AllRead"], hide: ["Person.ssn"], rows: ["PersonCar": "Person/lastName ne 'x'"])])
        _ = try TestGateway(access: accepted)
    }

    @Test func aReloadWithABadRowFilterKeepsTheRulesInForce() throws {
        let test = try RowFilteredGateway(engine: .sqlite)
        #expect(try test.call("Car(2)", as: "recent").status == 404)
        var file = try AccessFile.read(path: test.gateway.accessFilePath)
        file.roles["recent"]?.rows = ["Car": "year(manufactureDate) gt"]
        try file.write(path: test.gateway.accessFilePath)
        #expect(throws: AccessFileError.self) { try test.gateway.access!.reload() }
        #expect(try test.call("Car(2)", as: "recent").status == 404)
        // A good one applies from the next request: car 2 is from 2004.
        file.roles["recent"]?.rows = ["Car": "year(manufactureDate) gt 2003"]
        try file.write(path: test.gateway.accessFilePath)
        try test.gateway.access!.reload()
        #expect(try test.call("Car(2)", as: "recent").status == 200)
        #expect(try test.call("Car(1)", as: "recent").status == 404)
    }
}

/// The car dealer with a role `recent` that sees only the cars made after 2005, `mine` that sees
/// only person 1's cars, and `admin`.
struct RowFilteredGateway {
    static let filter = "year(manufactureDate) gt 2005"

    let gateway: TestGateway
    let keys: [String: String]

    init(engine: TestGateway.Engine) throws {
        // `mine` sees only person 1's cars.
        var file = AccessFile(roles: ["recent": .init(sets: ["*": "All"], rows: ["Car": Self.filter]),
                                      "mine": .init(sets: ["*": "All"], rows: ["PersonCar": "Person/personID eq 1"])])
        var keys: [String: String] = [:]
        for role in ["admin", "recent", "mine"] {
            let (key, entry) = APIKey.entry(name: role + "-key", role: role, rateLimit: nil)
            file.keys.append(entry)
            keys[role] = key
        }
        gateway = try TestGateway(engine: engine, access: file)
        self.keys = keys
    }

    func call(_ target: String, as role: String) throws -> RawHTTPResponse { try call("GET", target, as: role) }

    func call(_ method: String, _ target: String, as role: String, json: Any? = nil, headers: [String: String] = [:]) throws -> RawHTTPResponse {
        let authorization = headers.merging(["Authorization": "Bearer " + keys[role]!]) { $1 }
        if let json { return try gateway.send(method, target, json: json, headers: authorization) }
        return try gateway.request(method, TestGateway.encodeQuery(target), headers: authorization.merging(["Accept": "application/json"]) { $1 })
    }

    /// Checks a request about a hidden row got the answer the same request about a row that
    /// does not exist gets: status and body, but for the key in it.
    func expectSameAnswer(_ hidden: RawHTTPResponse, _ missing: RawHTTPResponse, hiddenKey: String, missingKey: String,
                          _ what: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(hidden.status == missing.status, "\(what)", sourceLocation: sourceLocation)
        #expect(hidden.text == missing.text.replacingOccurrences(of: missingKey, with: hiddenKey), "\(what): \(hidden.text.prefix(300))",
                sourceLocation: sourceLocation)
    }

    /// What only the hidden cars hold, as a response would write it: their dates (milliseconds of
    /// `/Date(…)/`) and the models no visible car has.
    func hiddenTraces(_ hidden: Set<Int>) throws -> [String] {
        let response = try call("Car", as: "admin")
        let d = try response.d()
        let cars = try #require((d as? [String: Any])?["results"] as? [[String: Any]] ?? d as? [[String: Any]])
        var traces: [String] = []
        var hiddenModels: Set<String> = [], visibleModels: Set<String> = []
        for car in cars {
            guard let id = car["carID"] as? Int, let model = car["model"] as? String else { continue }
            guard hidden.contains(id) else { visibleModels.insert(model); continue }
            hiddenModels.insert(model)
            for date in [car["manufactureDate"], car["createStamp"]].compactMap({ $0 as? String }) {
                traces.append(String(date.filter { $0.isNumber || $0 == "-" }))
            }
        }
        return traces + hiddenModels.subtracting(visibleModels).map { "\"" + $0 + "\"" }
    }

    /// Every PersonCar key named by a `PersonCar(n)` URI in the body, in order of first mention.
    func personCarIDs(in response: RawHTTPResponse) -> [Int] {
        var seen = Set<Int>()
        return ids(of: "PersonCar", in: response).filter { seen.insert($0).inserted }
    }

    /// Car keys by what admin sees: those the filter admits and those it hides.
    func carKeys() throws -> (visible: Set<Int>, hidden: Set<Int>) {
        let all = try Set(carIDs(in: call("Car?$select=carID", as: "admin")))
        let visible = try Set(carIDs(in: call("Car?$select=carID&$filter=\(Self.filter)", as: "admin")))
        return (visible, all.subtracting(visible))
    }

    /// Every Car key named by a `Car(n)` URI in the body.
    func carIDs(in response: RawHTTPResponse) -> [Int] { ids(of: "Car", in: response) }

    private func ids(of set: String, in response: RawHTTPResponse) -> [Int] {
        let text = response.text
        var ids: [Int] = []
        var rest = text[...]
        while let range = rest.range(of: "/" + set + "(") {
            let digits = rest[range.upperBound...].prefix { $0.isNumber }
            if let id = Int(digits), rest[range.upperBound...].dropFirst(digits.count).first == ")" { ids.append(id) }
            rest = rest[range.upperBound...]
        }
        return ids
    }
}
