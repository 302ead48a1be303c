import Foundation
import Testing

/// Bad requests get an OData error body with the right status, and never a crash.
@Suite struct ErrorResponseTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    @Test(arguments: [
        ("Person('one')", 400, "Edm.Int32"),
        ("Person(1", 400, "unclosed"),
        ("Person(1,2)", 400, "key"),
        ("Person(personID=1,x=2)", 400, "key"),
        ("Person(99999999999)", 400, "Edm.Int32"),
        ("Person(1)/PersonCar/Car", 400, "collection"),
        ("Person?$top=-1", 400, "$top"),
        ("Person?$top=abc", 400, "$top"),
        ("Person?$skip=1.5", 400, "$skip"),
        ("Person?$bogus=1", 400, "$bogus"),
        ("Person?$top=1&$top=2", 400, "more than once"),
        ("Person?$expand=Nope", 400, "Nope"),
        ("Person?$expand=PersonCar/Nope", 400, "Nope"),
        ("Person?$inlinecount=sometimes", 400, "$inlinecount"),
        ("Person?$format=yaml", 400, "$format"),
        ("Person?$select=nope", 400, "nope"),
        ("Person?$select=PersonCar/Car", 400, "$expand"),
        ("Person(1)?$top=1", 400, "collections"),
        ("Person/$count/x", 400, "$count"),
        ("Person(1)/firstName/x", 400, "$value"),
        ("Person(1)/$value", 400, "media"),
        ("Person(1)/$links", 400, "$links"),
        ("%ZZ", 400, "percent"),
        ("Nope", 404, "Nope"),
        ("Person(999)", 404, "Person(999)"),
        ("Person(1)/nope", 404, "nope"),
        ("Person(999)/PersonCar", 404, "Person(999)"),
        ("Person(1)/$links/Nope", 404, "Nope"),
        ("$metadata/x", 400, "$metadata"),
    ] as [(String, Int, String)])
    func malformedOrUnknownResources(target: String, status: Int, mention: String) throws {
        let gateway = try TestGateway()
        let response = try gateway.get(target)
        #expect(response.status == status, "\(target): \(response.text)")
        let message = try response.errorMessage()
        #expect(message.contains(mention), "\(target): message '\(message)' should mention \(mention)")
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test(arguments: TestGateway.engines) func unknownServiceRootIsNotFound(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        for target in ["/Other.svc/Person", "/CarDealer.svcX/Person", "/CarDealer.sv", "/Other.svc?x=/CarDealer.svc/Person"] {
            let response = try gateway.request("GET", target)
            #expect(response.status == 404, "\(target): \(response.text)")
            #expect(try response.errorMessage().contains("service root"), "\(target)")
        }
        // The root itself, with or without its slash or a query, is the service document.
        for target in ["/CarDealer.svc", "/CarDealer.svc/", "/CarDealer.svc?$format=json"] {
            #expect(try gateway.request("GET", target).status == 200, "\(target)")
        }
    }

    @Test(arguments: TestGateway.engines) func methodNotAllowed(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.request("TRACE", "Person")
        #expect([405, 501].contains(response.status))
        let batchGet = try gateway.get("$batch")
        #expect(batchGet.status == 405)
        #expect(batchGet.header("Allow") == "POST")
        _ = try batchGet.errorMessage()
    }

    @Test(arguments: TestGateway.engines) func unsupportedFormatsGetNotAcceptable(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.get("Person", accept: "text/csv")
        #expect(response.status == 406)
        _ = try response.errorMessage()
        // A client that accepts only XML gets its errors as XML.
        let missing = try gateway.get("Person(999)", accept: "application/atom+xml")
        #expect(missing.status == 404)
        #expect(missing.text.contains("<message xml:lang=\"en-US\">"))
    }

    @Test(arguments: TestGateway.engines) func versionNegotiation(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let tooNew = try gateway.request("GET", "Person", headers: ["Accept": "application/json", "DataServiceVersion": "3.0"])
        #expect(tooNew.status == 400)
        let oldClient = try gateway.request("GET", "Person?$inlinecount=allpages", headers: ["Accept": "application/json", "MaxDataServiceVersion": "1.0"])
        #expect(oldClient.status == 400)
        #expect(try oldClient.errorMessage().contains("MaxDataServiceVersion"))
        let fine = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "MaxDataServiceVersion": "1.0;NetFx"])
        #expect(fine.status == 200)
        let garbage = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "MaxDataServiceVersion": "x.y"])
        #expect(garbage.status == 400)
    }

    @Test(arguments: TestGateway.engines) func unexpectedFailuresAre500WithoutInternals(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        // Pull a table out from under the running gateway.
        let database = try gateway.openConnection()
        try database.execute((engine == .sqlite ? "PRAGMA foreign_keys=OFF; " : "") + "DROP TABLE \"PersonCarMaintenance\"")
        let response = try gateway.get("PersonCarMaintenance")
        #expect(response.status == 500)
        let message = try response.errorMessage()
        #expect(!message.contains("SELECT") && !message.contains("PersonCarMaintenance") && !message.lowercased().contains("sqlite"), "\(message)")
        #expect(try gateway.get("Person(1)").status == 200, "the server carries on")
    }

    @Test(arguments: TestGateway.engines) func longURIsAreRefusedWithTheBound(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try gateway.get("Person?$filter=" + String(repeating: "a", count: 9000))
        #expect(response.status == 400)
        #expect(try response.errorMessage().contains("maximum URI length"))
    }

    @Test(arguments: TestGateway.engines) func garbageNeverCrashesTheServer(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("()/$=',%?&abcPerson19 *-:;.\"\\\u{00e9}")
        for _ in 0..<300 {
            let length = Int.random(in: 1...40, using: &generator)
            let target = String((0..<length).map { _ in alphabet.randomElement(using: &generator)! })
            let escaped = target.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(.init(charactersIn: " "))) ?? "x"
            let response = try gateway.get(escaped)
            #expect([200, 400, 404, 405, 406, 501].contains(response.status), "\(escaped) -> \(response.status)")
            if response.status >= 400 { _ = try response.errorMessage() }
        }
        #expect(try gateway.get("Person(1)").status == 200)
    }
}
