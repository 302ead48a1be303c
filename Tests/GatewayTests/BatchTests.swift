import Foundation
import HTTPCore
@testable import ODataHTTP
import Testing

/// `$batch` over HTTP: query operations and change sets, Content-ID references, change sets
/// that apply whole or not at all, and malformed batches that change nothing. Then the batch
/// reader and writer on their own.
@Suite struct BatchTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway { try TestGateway(engine: engine) }

    // MARK: Building and reading batches

    /// One operation of a test batch.
    struct Operation {
        var method: String
        var uri: String
        var body: String?
        var contentID: String?
        var headers: [String: String] = [:]
    }

    static func part(_ operation: Operation) -> String {
        var text = "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
        if let id = operation.contentID { text += "Content-ID: \(id)\r\n" }
        text += "\r\n\(operation.method) \(operation.uri) HTTP/1.1\r\n"
        for (name, value) in operation.headers where name != "Content-Type" { text += "\(name): \(value)\r\n" }
        if let body = operation.body {
            let type = operation.headers["Content-Type"] ?? "application/json"
            text += "Content-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)\r\n"
        } else {
            text += "\r\n"
        }
        return text
    }

    /// A batch body: each element is a query operation or (an array) a change set.
    static func body(_ parts: [Any], boundary: String = "batch_test") -> String {
        var text = ""
        for (index, part) in parts.enumerated() {
            text += "--\(boundary)\r\n"
            if let operation = part as? Operation {
                text += self.part(operation)
            } else if let operations = part as? [Operation] {
                let changeSet = "changeset_\(index)"
                text += "Content-Type: multipart/mixed; boundary=\(changeSet)\r\n\r\n"
                for operation in operations { text += "--\(changeSet)\r\n" + self.part(operation) }
                text += "--\(changeSet)--\r\n"
            }
        }
        return text + "--\(boundary)--\r\n"
    }

    func post(_ gateway: TestGateway, _ body: String, boundary: String = "batch_test") throws -> RawHTTPResponse {
        try gateway.send("POST", "$batch", text: body, headers: ["Content-Type": "multipart/mixed; boundary=\(boundary)"])
    }

    /// A response inside a batch response.
    struct Answer {
        var status: Int
        var headers: BatchHeaders
        var partHeaders: BatchHeaders
        var body: [UInt8]
        var text: String { String(decoding: body, as: UTF8.self) }
        func json() throws -> [String: Any] { try JSONSerialization.jsonObject(with: Data(body)) as! [String: Any] }
    }

    enum AnswerPart {
        case single(Answer)
        case changeSet([Answer])
    }

    /// Reads a batch response with the same MIME primitives the service uses.
    static func answers(_ response: RawHTTPResponse) throws -> [AnswerPart] {
        let contentType = try #require(response.header("Content-Type"))
        let boundary = try BatchRequestParser.boundary(fromContentType: contentType)
        var result: [AnswerPart] = []
        for raw in try MultipartBody.parts(of: response.body[...], boundary: boundary, what: "response") {
            let (headers, start) = try MultipartBody.headers(of: raw, what: "part")
            let content = raw[(start ?? raw.endIndex)...]
            if let type = headers["Content-Type"], type.hasPrefix("multipart/mixed") {
                let inner = try BatchRequestParser.boundary(fromContentType: type)
                result.append(.changeSet(try MultipartBody.parts(of: content, boundary: inner, what: "change set").map { try answer($0) }))
            } else {
                result.append(.single(try answer(raw)))
            }
        }
        return result
    }

    private static func answer(_ raw: ArraySlice<UInt8>) throws -> Answer {
        let (partHeaders, start) = try MultipartBody.headers(of: raw, what: "part")
        let content = raw[(start ?? raw.endIndex)...]
        let lineEnd = content.firstIndex(of: 0x0A) ?? content.endIndex
        let statusLine = String(decoding: content[content.startIndex..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let status = Int(statusLine.split(separator: " ")[1])!
        let (headers, bodyStart) = try MultipartBody.headers(of: content[min(lineEnd + 1, content.endIndex)...], what: "response")
        var body = Array(content[(bodyStart ?? content.endIndex)...])
        if let length = headers["Content-Length"].flatMap(Int.init) {
            #expect(body.count == length, "Content-Length \(length) for \(body.count) bytes")
            body = Array(body.prefix(length))
        }
        return Answer(status: status, headers: headers, partHeaders: partHeaders, body: body)
    }

    static let stamp = #""\/Date(1577836800000)\/""#

    // MARK: Over HTTP

    @Test(arguments: TestGateway.engines) func queriesAndChangeSetsAnsweredInOrderWithContentIDReferences(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try post(gateway, Self.body([
            Operation(method: "GET", uri: "Person(1)", headers: ["Accept": "application/json"]),
            [
                Operation(method: "POST", uri: "Car", body: #"{"make":"Saab","model":"900","createStamp":\#(Self.stamp)}"#, contentID: "1"),
                Operation(method: "POST", uri: "$1/PersonCar", body: #"{"createStamp":\#(Self.stamp),"Person":{"__metadata":{"uri":"Person(2)"}}}"#, contentID: "2"),
                Operation(method: "POST", uri: "$2/PersonCarMaintenance",
                          body: #"{"serviceDate":\#(Self.stamp),"mileage":10,"cost":"12.5","createStamp":\#(Self.stamp),"Maintenance":{"__metadata":{"uri":"Maintenance(1)"}}}"#),
                Operation(method: "MERGE", uri: "$1", body: #"{"model":"9-3"}"#),
                Operation(method: "POST", uri: gateway.root + "Person", body: #"{"firstName":"Batch","lastName":"Made","createDate":\#(Self.stamp),"PersonCar":[{"createStamp":\#(Self.stamp),"Car":{"__metadata":{"uri":"$1"}}}]}"#, contentID: "4"),
            ],
            Operation(method: "GET", uri: "/CarDealer.svc/Car(91)?$expand=PersonCar", headers: ["Accept": "application/json"]),
        ]))
        #expect(response.status == 202, "\(response.text)")
        #expect(response.header("DataServiceVersion") == "1.0;")
        let parts = try Self.answers(response)
        try #require(parts.count == 3)

        guard case .single(let first) = parts[0] else { Issue.record("first part is not a query"); return }
        #expect(first.status == 200)
        #expect((try first.json()["d"] as? [String: Any])?["firstName"] as? String == "Bob")
        #expect(first.headers["ETag"] != nil)

        guard case .changeSet(let changes) = parts[1] else { Issue.record("second part is not a change set"); return }
        #expect(changes.map(\.status) == [201, 201, 201, 204, 201])
        #expect(changes[0].partHeaders["Content-ID"] == "1", "the Content-ID is echoed where it was sent")
        #expect(changes[0].headers["Location"] == gateway.root + "Car(91)")
        #expect(changes[1].headers["Location"] == gateway.root + "PersonCar(107)")
        #expect(changes[2].headers["Location"] == gateway.root + "PersonCarMaintenance(259)")
        #expect(changes[3].body.isEmpty && changes[3].headers["Content-Length"] == nil)

        guard case .single(let last) = parts[2] else { Issue.record("third part is not a query"); return }
        let car = try #require(try last.json()["d"] as? [String: Any])
        #expect(car["model"] as? String == "9-3", "a query after a change set sees it")
        #expect((car["PersonCar"] as? [[String: Any]])?.count == 2)
        #expect(try gateway.entity("PersonCar(107)/Person")["personID"] as? Int == 2)
        #expect(try gateway.entity("PersonCarMaintenance(259)/PersonCar")["personCarID"] as? Int == 107)
        #expect(try gateway.entity("Person(61)")["firstName"] as? String == "Batch")
    }

    @Test(arguments: TestGateway.engines) func aChangeSetAppliesWholeOrNotAtAll(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try gateway.tableContents()
        let response = try post(gateway, Self.body([
            [
                Operation(method: "POST", uri: "Car", body: #"{"make":"Saab","model":"900","createStamp":\#(Self.stamp)}"#, contentID: "1"),
                Operation(method: "MERGE", uri: "Person(1)", body: #"{"firstName":"Changed"}"#),
                Operation(method: "DELETE", uri: "Person(1)"),  // 409: Bob has cars
                Operation(method: "MERGE", uri: "Person(2)", body: #"{"firstName":"Never"}"#),
            ],
        ]))
        #expect(response.status == 202)
        let parts = try Self.answers(response)
        guard case .single(let failure)? = parts.first, parts.count == 1 else { Issue.record("expected one error response: \(response.text)"); return }
        #expect(failure.status == 409)
        #expect(failure.text.contains("FK_PersonCar_Person"))
        #expect(try gateway.tableContents() == before, "the car created and the person changed before the failure are rolled back")

        // Change sets are independent: one failing does not undo another.
        let mixed = try post(gateway, Self.body([
            [Operation(method: "MERGE", uri: "Person(3)", body: #"{"ssn":"kept"}"#)],
            [Operation(method: "MERGE", uri: "Person(4)", body: #"{"ssn":"123456789012345"}"#)],
            [Operation(method: "POST", uri: "$9/PersonCar", body: "{}")],
            [Operation(method: "MERGE", uri: "Person(5)", body: #"{"ssn":"x"}"#, headers: ["If-Match": "W/\"0000000000000000\""])],
        ]))
        let mixedParts = try Self.answers(mixed)
        try #require(mixedParts.count == 4)
        if case .changeSet(let ok) = mixedParts[0] { #expect(ok.map(\.status) == [204]) } else { Issue.record("first change set failed") }
        if case .single(let tooLong) = mixedParts[1] { #expect(tooLong.status == 400 && tooLong.text.contains("'ssn'")) } else { Issue.record("second change set succeeded") }
        if case .single(let unknown) = mixedParts[2] { #expect(unknown.status == 400 && unknown.text.contains("Content-ID '9'")) } else { Issue.record("third change set succeeded") }
        if case .single(let stale) = mixedParts[3] { #expect(stale.status == 412) } else { Issue.record("fourth change set succeeded") }
        #expect(try gateway.entity("Person(3)")["ssn"] as? String == "kept")
        #expect(try gateway.entity("Person(4)")["ssn"] as? String == "415243852")
    }

    @Test(arguments: TestGateway.engines) func contentIDsInLinksAndDeletes(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let response = try post(gateway, Self.body([
            [
                Operation(method: "POST", uri: "Maintenance", body: #"{"description":"Detail","category":"Body","laborHours":1,"standardPrice":10}"#, contentID: "m"),
                Operation(method: "POST", uri: "PersonCarMaintenance(1)/$links/Maintenance", body: #"{"uri":"$m"}"#),
                Operation(method: "PUT", uri: "PersonCarMaintenance(1)/$links/Maintenance", body: #"{"uri":"$m"}"#),
                Operation(method: "PUT", uri: "PersonCarMaintenance(2)/$links/Maintenance", body: #"{"uri":"$m"}"#),
                Operation(method: "POST", uri: "Car", body: #"{"make":"Gone","model":"Soon","createStamp":\#(Self.stamp)}"#, contentID: "c"),
                Operation(method: "DELETE", uri: "$c"),
            ],
        ]))
        let parts = try Self.answers(response)
        // POST to a to-one $links is refused, so the whole change set is.
        guard case .single(let refused)? = parts.first else { Issue.record("change set should fail: \(response.text)"); return }
        #expect(refused.status == 405)
        #expect(try gateway.rowCount("Maintenance") == 25)

        let retry = try post(gateway, Self.body([
            [
                Operation(method: "POST", uri: "Maintenance", body: #"{"description":"Detail","category":"Body","laborHours":1,"standardPrice":10}"#, contentID: "m"),
                Operation(method: "PUT", uri: "PersonCarMaintenance(2)/$links/Maintenance", body: #"{"uri":"$m"}"#),
                Operation(method: "POST", uri: "Car", body: #"{"make":"Gone","model":"Soon","createStamp":\#(Self.stamp)}"#, contentID: "c"),
                Operation(method: "DELETE", uri: "$c"),
            ],
        ]))
        guard case .changeSet(let answers)? = try Self.answers(retry).first else { Issue.record("change set failed: \(retry.text)"); return }
        #expect(answers.map(\.status) == [201, 204, 201, 204])
        #expect(try gateway.entity("PersonCarMaintenance(2)/Maintenance")["description"] as? String == "Detail")
        #expect(try gateway.get("Car(91)").status == 404)
    }

    @Test(arguments: TestGateway.engines) func malformedBatchesAre400AndChangeNothing(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let before = try gateway.tableContents()
        let create = Operation(method: "POST", uri: "Car", body: #"{"make":"A","model":"B","createStamp":\#(Self.stamp)}"#)
        var unterminated = Self.body([[create]])
        unterminated.removeLast("--batch_test--\r\n".count)
        let cases: [(String, String?, String)] = [
            (unterminated, nil, "closing delimiter"),
            (Self.body([create]), nil, "outside a change set"),
            (Self.body([[create, Operation(method: "GET", uri: "Car(1)")]]), nil, "inside a change set"),
            (Self.body([[create]]).replacingOccurrences(of: "POST Car HTTP/1.1", with: "POST Car"), nil, "request line"),
            (Self.body([[create]]).replacingOccurrences(of: "POST Car", with: "BREW Car"), nil, "BREW"),
            (Self.body([[create, create]]).replacingOccurrences(of: "Content-Transfer-Encoding: binary\r\n\r\nPOST", with: "Content-Transfer-Encoding: binary\r\nContent-ID: 1\r\n\r\nPOST"), nil, "used twice"),
            (Self.body([[create]]), "multipart/mixed", "boundary"),
            ("", nil, "boundary delimiter"),
        ]
        for (body, contentType, fragment) in cases {
            let response = try gateway.send("POST", "$batch", text: body, headers: ["Content-Type": contentType ?? "multipart/mixed; boundary=batch_test"])
            #expect(response.status == 400, "\(fragment): \(response.text)")
            #expect((try? response.errorMessage())?.contains(fragment) == true, "\(fragment): \(response.text)")
        }
        #expect(try gateway.tableContents() == before)
        #expect(try gateway.get("$batch").status == 405)
    }

    @Test(arguments: TestGateway.engines) func batchesWorkOnTheSecondSchema(engine: TestGateway.Engine) throws {
        let inventory = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                        seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        let body = Self.body([
            [
                Operation(method: "POST", uri: "Warehouses", body: #"{"Region":"west","Code":3,"Name":"West"}"#, contentID: "w"),
                Operation(method: "POST", uri: "$w/Items", body: #"{"Label":"Batched","InStock":true}"#, contentID: "i"),
                Operation(method: "POST", uri: "$i/Notes", body: #"{"Line":1,"Text":"from a batch"}"#),
            ],
        ])
        let response = try inventory.send("POST", "$batch", text: body, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
        guard case .changeSet(let answers)? = try Self.answers(response).first else { Issue.record("\(response.text)"); return }
        #expect(answers.map(\.status) == [201, 201, 201])
        #expect(answers[2].headers["Location"] == inventory.root + "Notes(ItemId=6L,Line=1)")
        #expect(try inventory.entity("Items(6L)/Warehouse")["Name"] as? String == "West")
    }

    // MARK: The reader and writer on their own

    @Test func parserReadsHeadersBodiesAndContentIDs() throws {
        let text = "preamble\n--b\nContent-Type: application/http\n\nGET Person(1) HTTP/1.1\nAccept: application/json\n\n\n"
            + "--b\nContent-Type: multipart/mixed; boundary=\"c s\"\n\n--c s\nContent-Type: application/http\n\n"
            + "POST Car HTTP/1.1\nContent-ID: 7\nContent-Type: application/json\nContent-Length: 2\n\n{}ignored\n--c s--\n--b--\nepilogue"
        let batch = try BatchRequestParser().parse(Array(text.utf8), contentType: "multipart/mixed; boundary=b")
        #expect(batch.parts.count == 2)
        guard case .query(let query) = batch.parts[0], case .changeSet(let changes) = batch.parts[1] else {
            Issue.record("wrong parts: \(batch.parts)")
            return
        }
        #expect(query.method == "GET" && query.uri == "Person(1)" && query.headers["accept"] == "application/json")
        #expect(changes.count == 1)
        #expect(changes[0].body == Array("{}".utf8), "Content-Length cuts the body")
        #expect(changes[0].contentID == "7" && changes[0].contentIDLocation == .requestHeader)
        #expect(throws: BatchError.self) { try BatchRequestParser(maximumOperations: 1).parse(Array(text.utf8), boundary: "b") }
    }

    @Test func writerAndContentIDReferences() throws {
        let parts: [BatchResponsePart] = [
            .query(BatchOperationResponse(statusCode: 200, headers: BatchHeaders(["Content-Type": "text/plain"]), body: Array("5".utf8))),
            .changeSet([
                BatchOperationResponse(statusCode: 201, headers: BatchHeaders(["Location": "http://h/s.svc/Car(1)"]), body: Array("{}".utf8),
                                       contentID: "1", contentIDLocation: .requestHeader),
                BatchOperationResponse(statusCode: 204, headers: BatchHeaders(["Content-Length": "99"])),
            ]),
        ]
        let text = String(decoding: BatchResponseWriter.write(parts, boundary: "out"), as: UTF8.self)
        #expect(text.hasPrefix("--out\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP/1.1 200 OK\r\n"))
        #expect(text.contains("HTTP/1.1 201 Created\r\nContent-ID: 1\r\nLocation: http://h/s.svc/Car(1)\r\nContent-Length: 2\r\n\r\n{}"))
        #expect(text.contains("HTTP/1.1 204 No Content\r\n\r\n"), "a 204 carries no Content-Length")
        #expect(text.hasSuffix("--out--\r\n"))

        var references = ContentIDReferences()
        references.record(contentID: "1", location: "http://h/s.svc/Car(1)")
        #expect(try references.resolve("$1/PersonCar?$top=1") == "http://h/s.svc/Car(1)/PersonCar?$top=1")
        #expect(try references.resolve("$metadata") == "$metadata")
        #expect(try references.resolve("Car(1)") == "Car(1)")
        #expect(throws: BatchError.self) { try references.resolve("$2") }
    }
}
