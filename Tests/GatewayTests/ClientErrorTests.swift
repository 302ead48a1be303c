import Foundation
import ODataStore
import SQLiteStore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A client's mistake is a 4xx with an OData error, and nothing it sends is silently coerced:
/// unknown type names, skip tokens that do not fit the query, arithmetic on constants that
/// overflows or divides by zero, bodies whose media type or charset is not what is read, bad
/// DataServiceVersion values and request targets that are not UTF-8.
@Suite struct ClientErrorTests {
    let gateway: TestGateway

    init() throws {
        gateway = try TestGateway { $0.defaultPageSize = 2 }
    }

    private func expectError(_ response: RawHTTPResponse, _ status: Int, code: String, mentioning fragment: String,
                             sourceLocation: SourceLocation = #_sourceLocation) throws {
        #expect(response.status == status, "\(response.text.prefix(300))", sourceLocation: sourceLocation)
        let error = try #require((try response.json() as? [String: Any])?["error"] as? [String: Any], sourceLocation: sourceLocation)
        #expect(error["code"] as? String == code, sourceLocation: sourceLocation)
        #expect(try response.errorMessage().contains(fragment), "\(response.text.prefix(300))", sourceLocation: sourceLocation)
    }

    /// The entities of a collection response: `d` (V1) or `d.results` (V2, with `__next`).
    static func entities(_ response: RawHTTPResponse) throws -> [[String: Any]] {
        let d = try response.d()
        if let page = d as? [String: Any] { return try #require(page["results"] as? [[String: Any]]) }
        return try #require(d as? [[String: Any]], "\(response.text.prefix(300))")
    }

    private func get(_ target: String) throws -> RawHTTPResponse {
        try gateway.get(TestGateway.encodeQuery(target))
    }

    // MARK: Type names

    @Test func unknownTypeNamesInCastAndIsOfAreBadRequests() throws {
        for filter in ["cast(personID,'Foo') eq 1", "cast(personID,'Edm.Foo') eq 1", "isof('Foo')", "isof(personID,'Foo')"] {
            try expectError(get("Person?$filter=\(filter)"), 400, code: "BadRequest", mentioning: "Foo")
        }
        // A cast to an entity type is valid OData that this service lacks: still 501.
        try expectError(get("Person?$filter=cast('edmexampleModel.Person')"), 501, code: "NotImplemented", mentioning: "entity type")
        #expect(try get("Person?$filter=isof('edmexampleModel.Person')").status == 200)
    }

    // MARK: Arithmetic

    @Test func constantArithmeticThatOverflowsOrDividesByZeroIsABadRequest() throws {
        for filter in ["2147483647 add 1 eq 2147483648L", "9223372036854775807L add 1L gt 0L", "personID div 0 eq 1",
                       "personID mod 0 eq 1", "personID eq 1 div (2 sub 2)", "personID eq -2147483647 sub 2"] {
            try expectError(get("Person?$filter=\(filter)"), 400, code: "BadRequest", mentioning: "Arithmetic error")
        }
        // In a wider type the same numbers are fine.
        let wide = try get("Person?$filter=2147483647L add 1 eq 2147483648L")
        #expect(wide.status == 200)
        #expect(try Self.entities(wide).count == 2)
    }

    @Test func columnArithmeticOutsideItsTypeMatchesNoRow() throws {
        // personID is Int32: personID add 2147483647 overflows for every person, so nothing is
        // greater than 0 and everything is null. In Int64 the sum exists.
        #expect(try Self.entities(get("Person?$filter=personID add 2147483647 gt 0")).isEmpty)
        #expect(try Self.entities(get("Person?$filter=personID add 2147483647 eq null")).count == 2)
        #expect(try Self.entities(get("Person?$filter=personID add 2147483647L gt 2147483647L")).count == 2)
        // Division by a zero column value is null too.
        #expect(try Self.entities(get("Person?$filter=personID div (personID sub personID) ge 0")).isEmpty)
    }

    // MARK: $skiptoken

    @Test func skipTokensThatDoNotFitTheQueryAreBadRequests() throws {
        for target in ["Person?$skiptoken='a'", "Person?$skiptoken=null", "Person?$skiptoken=1.5d", "Person?$skiptoken=2147483648L",
                       "Person?$skiptoken=true", "Person?$orderby=lastName&$skiptoken=5L,5L",
                       "Person?$orderby=createDate&$skiptoken='x',5L", "Maintenance?$orderby=laborHours&$skiptoken='x',1L"] {
            try expectError(get(target), 400, code: "BadRequest", mentioning: "$skiptoken")
        }
    }

    /// Follows `__next` from `target`: every page must be served, and every row seen once.
    private func walk(_ target: String, key: String) throws -> [Int] {
        var keys: [Int] = []
        var next: String? = target
        var pages = 0
        while let current = next, pages < 100 {
            let response = try gateway.get(current)
            #expect(response.status == 200, "\(current): \(response.text.prefix(300))")
            keys += try Self.entities(response).compactMap { $0[key] as? Int }
            next = (try response.d() as? [String: Any])?["__next"].flatMap { $0 as? String }.map { String($0.dropFirst(gateway.root.count)) }
            pages += 1
        }
        return keys
    }

    @Test func tokensTheServiceWritesStillWork() throws {
        let everyone = try walk("Person?$orderby=createDate%20desc,lastName,ssn", key: "personID")
        #expect(everyone.count == (try gateway.rowCount("Person")))
        #expect(Set(everyone).count == everyone.count)
        let maintenance = try walk("Maintenance?$orderby=laborHours,intervalMiles%20desc,standardPrice%20add%201", key: "maintenanceID")
        #expect(maintenance.count == (try gateway.rowCount("Maintenance")))
        #expect(Set(maintenance).count == maintenance.count)
        let flags = try walk("Person?$orderby=ssn%20eq%20null,personID%20mod%203", key: "personID")
        #expect(flags.count == everyone.count)
    }

    // MARK: Content-Type

    @Test func bodiesWithoutAReadableMediaTypeAre415() throws {
        let before = try gateway.tableContents()
        let merge = Array(#"{"ssn":"999"}"#.utf8)
        for contentType in [";;;", "", "application/json; charset=utf-16", "application/json;charset=\"ISO-8859-1\"",
                            "application/json;;odata=verbose", "application/json; charset", "json", "application/"] {
            let response = try gateway.send("MERGE", "Person(1)", body: merge, headers: ["Content-Type": contentType])
            try expectError(response, 415, code: "UnsupportedMediaType", mentioning: contentType.isEmpty ? "no Content-Type" : contentType)
        }
        let post = try gateway.send("POST", "Car", text: #"{"make":"A","model":"B","createStamp":"\/Date(0)\/"}"#,
                                    headers: ["Content-Type": "application/json;charset=utf-16"])
        try expectError(post, 415, code: "UnsupportedMediaType", mentioning: "utf-16")
        let link = try gateway.send("PUT", "PersonCar(1)/$links/Car", text: #"{"uri":"Car(2)"}"#, headers: ["Content-Type": ""])
        try expectError(link, 415, code: "UnsupportedMediaType", mentioning: "no Content-Type")
        for contentType in ["", ";;;", "application/json"] {
            let batch = try gateway.send("POST", "$batch", text: "--b\r\n--b--\r\n", headers: ["Content-Type": contentType])
            try expectError(batch, 415, code: "UnsupportedMediaType", mentioning: "multipart/mixed")
        }
        #expect(try gateway.tableContents() == before, "a refused body changed the database")
        // What is read as UTF-8 still is.
        for contentType in ["application/json", "application/json;odata=verbose;charset=utf-8", "application/json; charset=\"US-ASCII\"",
                            "application/json;"] {
            #expect(try gateway.send("MERGE", "Person(1)", body: merge, headers: ["Content-Type": contentType]).status == 204, "\(contentType)")
        }
    }

    @Test func rawValuesNeedTheirMediaType() throws {
        let octets = try gateway.send("PUT", "Person(1)/firstName/$value", text: "Bobby", headers: ["Content-Type": "application/octet-stream"])
        try expectError(octets, 415, code: "UnsupportedMediaType", mentioning: "text/plain")
        let utf16 = try gateway.send("PUT", "Person(1)/firstName/$value", text: "Bobby", headers: ["Content-Type": "text/plain;charset=utf-16"])
        try expectError(utf16, 415, code: "UnsupportedMediaType", mentioning: "utf-16")
        let none = try gateway.send("PUT", "Person(1)/firstName/$value", text: "Bobby", headers: ["Content-Type": ""])
        try expectError(none, 415, code: "UnsupportedMediaType", mentioning: "no Content-Type")
        #expect(try gateway.send("PUT", "Person(1)/firstName/$value", text: "Bobby", headers: ["Content-Type": "text/plain; charset=UTF-8"]).status == 204)
        #expect(try gateway.entity("Person(1)")["firstName"] as? String == "Bobby")
    }

    // MARK: Headers and target

    @Test func invalidDataServiceVersionsAreBadRequests() throws {
        for version in ["-1", "+1.0", "0.5", "1.x", "1.0.0", "", ".", "1.", "abc", "99999999999999999999"] {
            for header in ["DataServiceVersion", "MaxDataServiceVersion"] {
                let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", header: version])
                try expectError(response, 400, code: "BadRequest", mentioning: "not a valid data service version")
            }
        }
        for version in ["1.0", "2.0", "1.0;NetFx", " 2.0 "] {
            #expect(try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "DataServiceVersion": version]).status == 200)
        }
    }

    /// Sends `target` as raw bytes, which need not be UTF-8.
    private func getRaw(_ target: [UInt8]) throws -> RawHTTPResponse {
        let fd = try RawHTTPClient.connect(port: gateway.port)
        defer { close(fd) }
        let request = Array("GET ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nConnection: close\r\n\r\n".utf8)
        return try RawHTTPClient.exchange(fd, bytes: request)
    }

    @Test func textThatIsNotUTF8IsABadRequest() throws {
        let prefix = Array("/CarDealer.svc/Person?$filter=firstName%20eq%20'".utf8)
        for bytes in [[0xFF], [0xC3], [0xED, 0xA0, 0x80]] as [[UInt8]] {
            try expectError(getRaw(prefix + bytes + [UInt8(ascii: "'")]), 400, code: "BadRequest", mentioning: "UTF-8")
            let encoded = bytes.map { String(format: "%%%02X", $0) }.joined()
            try expectError(gateway.get("Person?$filter=firstName%20eq%20'\(encoded)'"), 400, code: "BadRequest", mentioning: "UTF-8")
        }
        // UTF-8, raw or percent-encoded, is read.
        #expect(try getRaw(prefix + Array("Zoë'".utf8)).status == 200)
        #expect(try gateway.get("Person?$filter=firstName%20eq%20'Zo%C3%AB'").status == 200)
    }
}
