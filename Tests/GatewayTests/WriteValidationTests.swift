import Foundation
import Testing

/// Every invalid write gets a clear error whose message names the property and the problem,
/// and the database is the same afterwards, byte for byte.
@Suite struct WriteValidationTests {
    let gateway: TestGateway
    init() throws { gateway = try TestGateway() }

    static let person = #"{"firstName":"Val","lastName":"Idation","createDate":"\/Date(1577836800000)\/""#

    /// Sends the request, checks the status and that the message contains every fragment, and
    /// that nothing changed.
    func expectRefused(_ method: String, _ target: String, body: [UInt8], headers: [String: String] = [:], status: Int = 400,
                       mentioning fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let before = try gateway.tableContents()
        let response = try gateway.send(method, target, body: body, headers: headers)
        #expect(response.status == status, "\(method) \(target): \(response.text)", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        let message = try response.errorMessage()
        for fragment in fragments {
            #expect(message.contains(fragment), "'\(fragment)' not in: \(message)", sourceLocation: sourceLocation)
        }
        #expect(try gateway.tableContents() == before, "the database changed", sourceLocation: sourceLocation)
    }

    func expectRefused(_ method: String, _ target: String, text: String, headers: [String: String] = [:], status: Int = 400,
                       mentioning fragments: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        try expectRefused(method, target, body: Array(text.utf8), headers: headers, status: status, mentioning: fragments,
                          sourceLocation: sourceLocation)
    }

    @Test func wrongType() throws {
        try expectRefused("POST", "Person", text: Self.person.replacingOccurrences(of: #""Val""#, with: "42") + "}",
                          mentioning: ["'firstName'", "Edm.String", "not a number"])
        try expectRefused("MERGE", "PersonCarMaintenance(1)", text: #"{"mileage":"far"}"#, mentioning: ["'mileage'", "Edm.Int32", "'far'"])
        try expectRefused("MERGE", "PersonCarMaintenance(1)", text: #"{"mileage":1.5}"#, mentioning: ["'mileage'", "not an integer"])
        try expectRefused("MERGE", "PersonCarMaintenance(1)", text: #"{"mileage":3000000000}"#, mentioning: ["'mileage'", "out of range"])
        try expectRefused("MERGE", "Car(1)", text: #"{"manufactureDate":"yesterday"}"#, mentioning: ["'manufactureDate'", "Edm.DateTime"])
        try expectRefused("MERGE", "Maintenance(1)", text: #"{"laborHours":"1.234"}"#, mentioning: ["'laborHours'", "Scale of 2"])
        try expectRefused("MERGE", "Maintenance(1)", text: #"{"standardPrice":true}"#, mentioning: ["'standardPrice'", "not a boolean"])
    }

    @Test func nullForANonNullableProperty() throws {
        try expectRefused("MERGE", "Person(1)", text: #"{"lastName":null}"#, mentioning: ["'lastName'", "not nullable"])
        try expectRefused("POST", "Car", text: #"{"make":"A","model":null,"createStamp":"\/Date(0)\/"}"#, mentioning: ["'model'", "not nullable"])
        try expectRefused("POST", "Car", text: #"{"make":"A","model":"B"}"#, mentioning: ["'createStamp'", "missing"])
    }

    @Test func stringLongerThanItsMaxLength() throws {
        let long = String(repeating: "x", count: 51)
        try expectRefused("MERGE", "Person(1)", text: #"{"firstName":"\#(long)"}"#, mentioning: ["'firstName'", "MaxLength of 50", "51"])
        try expectRefused("MERGE", "Person(1)", text: #"{"ssn":"123456789012"}"#, mentioning: ["'ssn'", "MaxLength of 11"])
        // Characters, not bytes: 50 accented letters fit.
        let accented = String(repeating: "é", count: 50)
        #expect(try gateway.send("MERGE", "Person(1)", text: #"{"firstName":"\#(accented)"}"#).status == 204)
    }

    @Test func unknownProperty() throws {
        try expectRefused("POST", "Person", text: Self.person + #","nickname":"V"}"#, mentioning: ["'nickname'", "does not exist", "edmexampleModel.Person"])
        try expectRefused("MERGE", "Car(1)", text: #"{"Wheels":[]}"#, mentioning: ["'Wheels'", "neither a property nor a navigation property"])
    }

    @Test func keyInTheBodyThatConflictsWithTheURI() throws {
        try expectRefused("PUT", "Person(1)", text: Self.person + #","personID":2}"#, mentioning: ["'personID'", "2", "1"])
        try expectRefused("MERGE", "Car(1)", text: #"{"carID":5}"#, mentioning: ["'carID'"])
        // The same key is no conflict.
        #expect(try gateway.send("MERGE", "Car(1)", text: #"{"carID":1,"model":"Same"}"#).status == 204)
    }

    @Test func malformedJSON() throws {
        try expectRefused("POST", "Person", text: Self.person, mentioning: ["malformed JSON", "at byte"])
        try expectRefused("POST", "Person", text: #"{"firstName":"a",}"#, mentioning: ["malformed JSON"])
        try expectRefused("POST", "Person", text: #"{"firstName":"a","firstName":"b"}"#, mentioning: ["firstName"])
        try expectRefused("POST", "Person", text: "", mentioning: ["empty"])
        try expectRefused("POST", "Person(1)/$links/PersonCar", text: "{uri: 1}", mentioning: ["malformed JSON"])
    }

    @Test func invalidUTF8() throws {
        var body = Array((Self.person + "}").utf8)
        let index = body.firstIndex(of: UInt8(ascii: "V"))!
        body[index] = 0xC3  // a lead byte followed by 'a', not a continuation byte
        try expectRefused("POST", "Person", body: body, mentioning: ["not valid UTF-8", "at byte"])
        try expectRefused("PUT", "Person(1)/lastName/$value", body: [0x41, 0xFF, 0x42], headers: ["Content-Type": "text/plain"],
                          mentioning: ["not valid UTF-8"])
    }

    @Test func bodyThatIsNotAnObject() throws {
        try expectRefused("POST", "Person", text: "[1,2]", mentioning: ["must be a JSON object", "edmexampleModel.Person", "not an array"])
        try expectRefused("PUT", "Person(1)", text: "\"Bob\"", mentioning: ["must be a JSON object", "not a string"])
        try expectRefused("PUT", "Person(1)/firstName", text: "\"Bob\"", mentioning: ["'firstName'", "not a string"])
        try expectRefused("POST", "Person(1)/$links/PersonCar", text: "[]", mentioning: ["{\"uri\"", "not an array"])
    }

    @Test func foreignKeyThatPointsNowhere() throws {
        try expectRefused("POST", "PersonCar", text: #"{"createStamp":"\/Date(0)\/","Person":{"__metadata":{"uri":"Person(999)"}},"Car":{"__metadata":{"uri":"Car(1)"}}}"#,
                          mentioning: ["FK_PersonCar_Person", "Person(999)"])
        try expectRefused("POST", "PersonCar", text: #"{"createStamp":"\/Date(0)\/","Person":{"__metadata":{"uri":"Person(1)"}}}"#,
                          mentioning: ["FK_PersonCar_Car", "requires a Car"])
        try expectRefused("POST", "Person(1)/$links/PersonCar", text: #"{"uri":"PersonCar(9999)"}"#, mentioning: ["FK_PersonCar_Person", "PersonCar(9999)"])
        try expectRefused("POST", "PersonCar", text: #"{"createStamp":"\/Date(0)\/","Person":{"__metadata":{"uri":"Nowhere(1)"}},"Car":{"__metadata":{"uri":"Car(1)"}}}"#,
                          mentioning: ["'Person'", "Nowhere(1)"])
    }

    @Test func bodyOverTheSizeLimitIs413() throws {
        // TestGateway's server takes at most 64 KiB.
        let padding = String(repeating: "x", count: 70 * 1024)
        let before = try gateway.tableContents()
        let response = try gateway.send("POST", "Person", text: Self.person + #","ssn":"\#(padding)"}"#)
        #expect(response.status == 413)
        #expect(try response.errorMessage().contains("larger than the limit"))
        #expect(try gateway.tableContents() == before)
        // Just under the limit is read (and then refused for what it says).
        let under = try gateway.send("POST", "Person", text: Self.person + #","ssn":"\#(String(repeating: "x", count: 60 * 1024))"}"#)
        #expect(under.status == 400)
        #expect(try under.errorMessage().contains("'ssn'"))
    }

    @Test func unsupportedContentTypeIs415() throws {
        try expectRefused("POST", "Person", text: "firstName,lastName", headers: ["Content-Type": "text/csv"], status: 415, mentioning: ["application/atom+xml", "application/json"])
        try expectRefused("MERGE", "Person(1)", text: Self.person + "}", headers: ["Content-Type": "text/plain"], status: 415, mentioning: ["text/plain"])
        try expectRefused("PUT", "Person(1)/lastName/$value", text: "x", headers: ["Content-Type": "application/xml"], status: 415, mentioning: ["$value"])
        try expectRefused("POST", "$batch", text: "{}", headers: ["Content-Type": "application/json"], status: 415, mentioning: ["multipart/mixed"])
        // JSON with parameters is JSON; a body without a Content-Type is not guessed at.
        #expect(try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"1"}"#, headers: ["Content-Type": "application/json;odata=verbose;charset=utf-8"]).status == 204)
        try expectRefused("MERGE", "Person(1)", text: #"{"ssn":"2"}"#, headers: ["Content-Type": ""], status: 415, mentioning: ["no Content-Type"])
        // Media types are case-insensitive, and white space around the type is not part of it.
        #expect(try gateway.send("MERGE", "Person(1)", text: #"{"ssn":"3"}"#, headers: ["Content-Type": " Application/JSON ; charset=utf-8"]).status == 204)
        try expectRefused("POST", "Person", text: Self.person + "}", headers: ["Content-Type": "application/jsonx"], status: 415, mentioning: ["application/jsonx"])
    }

    @Test func unacceptableAnswerIsRefusedBeforeWriting() throws {
        try expectRefused("POST", "Car", text: #"{"make":"A","model":"B","createStamp":"\/Date(0)\/"}"#, headers: ["Accept": "image/png"],
                          status: 406, mentioning: ["application/json"])
    }
}
