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
        for target in ["Car", "Car?$orderby=model desc&$top=100", "PersonCar(1)/$links/Car", "PersonCar/$links/Car",
                       "PersonCar(1)?$expand=Car", "PersonCar?$expand=Car", "Person?$expand=PersonCar/Car",
                       "Person(1)?$expand=PersonCar/Car", "Person(1)/PersonCar?$expand=Car",
                       "PersonCarMaintenance?$expand=PersonCar/Car&$top=200",
                       "PersonCar?$filter=Car/make eq 'Ford'&$expand=Car", "Car?$format=atom"] {
            let response = try test.call(target, as: "recent")
            #expect([200, 404].contains(response.status), "\(target)")
            let named = Set(test.carIDs(in: response))
            #expect(named.isDisjoint(with: hidden), "\(target): \(named.intersection(hidden).sorted())")
        }
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
        let link = try test.call("PUT", "PersonCar(3)/$links/Car", as: "recent", json: ["uri": test.gateway.root + "Car(2)"])
        #expect(link.status == 404)
        #expect(try test.call("PersonCar(3)/$links/Car", as: "admin").text.contains("Car(4)"))
        let bound: [String: Any] = ["createStamp": "/Date(0)/", "Car": ["__metadata": ["uri": test.gateway.root + "Car(2)"]],
                                    "Person": ["__metadata": ["uri": test.gateway.root + "Person(1)"]]]
        let records = try test.gateway.rowCount("PersonCar")
        #expect(try test.call("POST", "PersonCar", as: "recent", json: bound).status == 404)
        // A deep insert of an old car under a new record is refused whole.
        var deep = bound
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

    @Test func rowFiltersAreCheckedAgainstTheSchemaAtStart() throws {
        for rows in [["Nosuch": "true"], ["Car": "nosuch eq 1"], ["Car": "make"],
                     ["Car": "make eq 'Ford'", "PersonCar": "Car/make eq 'Ford'"]] {
            let file = AccessFile(roles: ["r": .init(sets: ["*": "AllRead"], rows: rows)])
            #expect(throws: AccessFileError.self, "\(rows)") { try TestGateway(access: file) }
        }
        let hidden = AccessFile(roles: ["r": .init(sets: ["*": "AllRead", "Car": "None"], rows: ["Car": "true"])])
        #expect(throws: AccessFileError.self) { try TestGateway(access: hidden) }
    }
}

/// The car dealer with a role `recent` that sees only the cars made after 2005, and `admin`.
struct RowFilteredGateway {
    static let filter = "year(manufactureDate) gt 2005"

    let gateway: TestGateway
    let keys: [String: String]

    init(engine: TestGateway.Engine) throws {
        var file = AccessFile(roles: ["recent": .init(sets: ["*": "All"], rows: ["Car": Self.filter])])
        var keys: [String: String] = [:]
        for role in ["admin", "recent"] {
            let (key, entry) = APIKey.entry(name: role + "-key", role: role, rateLimit: nil)
            file.keys.append(entry)
            keys[role] = key
        }
        gateway = try TestGateway(engine: engine, access: file)
        self.keys = keys
    }

    func call(_ target: String, as role: String) throws -> RawHTTPResponse { try call("GET", target, as: role) }

    func call(_ method: String, _ target: String, as role: String, json: Any? = nil) throws -> RawHTTPResponse {
        let authorization = ["Authorization": "Bearer " + keys[role]!]
        if let json { return try gateway.send(method, target, json: json, headers: authorization) }
        return try gateway.request(method, TestGateway.encodeQuery(target), headers: authorization.merging(["Accept": "application/json"]) { $1 })
    }

    /// Car keys by what admin sees: those the filter admits and those it hides.
    func carKeys() throws -> (visible: Set<Int>, hidden: Set<Int>) {
        let all = try Set(carIDs(in: call("Car?$select=carID", as: "admin")))
        let visible = try Set(carIDs(in: call("Car?$select=carID&$filter=\(Self.filter)", as: "admin")))
        return (visible, all.subtracting(visible))
    }

    /// Every Car key named by a `Car(n)` URI in the body.
    func carIDs(in response: RawHTTPResponse) -> [Int] {
        let text = response.text
        var ids: [Int] = []
        var rest = text[...]
        while let range = rest.range(of: "/Car(") {
            let digits = rest[range.upperBound...].prefix { $0.isNumber }
            if let id = Int(digits), rest[range.upperBound...].dropFirst(digits.count).first == ")" { ids.append(id) }
            rest = rest[range.upperBound...]
        }
        return ids
    }
}
