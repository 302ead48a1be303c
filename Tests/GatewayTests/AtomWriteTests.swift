import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// Atom and XML request bodies, as pyslet's and the WCF client write them: they go through the
/// JSON path's checks, so a bad one is a 400 with nothing written.
@Suite struct AtomWriteTests {
    let gateway: TestGateway
    init() throws { gateway = try TestGateway() }

    static let namespaces = #"xmlns="http://www.w3.org/2005/Atom" xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices" xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata""#
    static let related = "http://schemas.microsoft.com/ado/2007/08/dataservices/related/"

    static func entry(type: String, properties: String, links: String = "") -> String {
        #"<?xml version="1.0" encoding="utf-8"?><entry \#(namespaces)><category term="edmexampleModel.\#(type)" scheme="http://schemas.microsoft.com/ado/2007/08/dataservices/scheme"/><title/><updated>2026-11-27T00:00:00Z</updated><author><name/></author><id/>\#(links)<content type="application/xml"><m:properties>\#(properties)</m:properties></content></entry>"#
    }

    static let person = entry(type: "Person", properties: #"<d:firstName>Ada &amp; Co</d:firstName><d:lastName>Lovelace</d:lastName><d:ssn m:null="true"/><d:createDate m:type="Edm.DateTime">2009-11-01T12:00:00</d:createDate>"#)

    private func send(_ method: String, _ target: String, _ xml: String, contentType: String = "application/atom+xml;type=entry",
                      accept: String = "application/atom+xml", headers: [String: String] = [:]) throws -> RawHTTPResponse {
        try gateway.send(method, target, text: xml, headers: ["Content-Type": contentType, "Accept": accept].merging(headers) { $1 })
    }

    @Test func anAtomEntryIsCreatedAndAnsweredInAtom() throws {
        let created = try send("POST", "Person", Self.person)
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Content-Type")?.hasPrefix("application/atom+xml;type=entry") == true)
        let location = try #require(created.header("Location"))
        let entry = try XMLDocument(data: Data(created.body)).rootElement()
        #expect(entry?.localName == "entry")
        let person = try gateway.entity(String(location.split(separator: "/").last!))
        #expect(person["firstName"] as? String == "Ada & Co")
        #expect(person["ssn"] is NSNull)
        #expect(person["createDate"] as? String == "/Date(1257076800000)/")
        // Asked for JSON, the answer to the same body is JSON.
        let json = try send("POST", "Person", Self.person, accept: "application/json")
        #expect(json.status == 201 && json.header("Content-Type")?.hasPrefix("application/json") == true)
    }

    @Test func aBoundEntityAndInlineEntitiesAreWritten() throws {
        // Through a navigation, bound to an existing Car by its link.
        let personCar = Self.entry(type: "PersonCar", properties: #"<d:createStamp m:type="Edm.DateTime">2010-01-01T00:00:00</d:createStamp>"#,
                                   links: #"<link rel="\#(Self.related)Car" type="application/atom+xml;type=entry" href="Car(7)"/>"#)
        let bound = try send("POST", "Person(2)/PersonCar", personCar)
        #expect(bound.status == 201, "\(bound.text)")
        let id = try #require(bound.header("Location")?.split(separator: "/").last.map(String.init))
        #expect(try gateway.entity(id + "/Car")["carID"] as? Int == 7)
        #expect(try gateway.entity(id + "/Person")["personID"] as? Int == 2)

        // Deep insert: a person with a new PersonCar inline, itself bound to a car.
        let inner = Self.entry(type: "PersonCar", properties: #"<d:createStamp m:type="Edm.DateTime">2010-01-01T00:00:00</d:createStamp>"#,
                               links: #"<link rel="\#(Self.related)Car" href="Car(3)"/>"#)
            .replacingOccurrences(of: #"<?xml version="1.0" encoding="utf-8"?>"#, with: "")
        let deep = Self.entry(type: "Person", properties: #"<d:firstName>Deep</d:firstName><d:lastName>Insert</d:lastName><d:createDate m:type="Edm.DateTime">2009-11-01T12:00:00</d:createDate>"#,
                              links: #"<link rel="\#(Self.related)PersonCar" type="application/atom+xml;type=feed"><m:inline><feed>\#(inner)</feed></m:inline></link>"#)
        let created = try send("POST", "Person", deep)
        #expect(created.status == 201, "\(created.text)")
        let person = try #require(created.header("Location")?.split(separator: "/").last.map(String.init))
        let cars = try #require(try gateway.get(person + "/PersonCar?$expand=Car").d() as? [[String: Any]])
        #expect(cars.count == 1)
        #expect((cars.first?["Car"] as? [String: Any])?["carID"] as? Int == 3)
    }

    @Test func putAndMergeTakeAtomEntries() throws {
        let merge = Self.entry(type: "Person", properties: #"<d:ssn>123-45-6789</d:ssn>"#)
        #expect(try send("MERGE", "Person(1)", merge).status == 204)
        var person = try gateway.entity("Person(1)")
        #expect(person["ssn"] as? String == "123-45-6789" && person["firstName"] as? String == "Bob")
        let put = Self.entry(type: "Person", properties: #"<d:firstName>Robert</d:firstName><d:lastName>Samson</d:lastName><d:createDate m:type="Edm.DateTime">2009-11-01T12:00:00</d:createDate>"#)
        #expect(try send("PUT", "Person(1)", put).status == 204)
        person = try gateway.entity("Person(1)")
        #expect(person["firstName"] as? String == "Robert" && person["ssn"] is NSNull, "PUT replaces: ssn left out is reset")
        let property = #"<d:lastName xmlns:d="http://schemas.microsoft.com/ado/2007/08/dataservices">Sampson</d:lastName>"#
        #expect(try send("PUT", "Person(1)/lastName", property, contentType: "application/xml").status == 204)
        #expect(try gateway.entity("Person(1)")["lastName"] as? String == "Sampson")
    }

    @Test func xmlLinksAreAddedAndReplaced() throws {
        let uri = #"<uri xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices">\#(gateway.root)PersonCar(1)</uri>"#
        #expect(try send("POST", "Person(2)/$links/PersonCar", uri, contentType: "application/xml").status == 204)
        #expect(try gateway.entity("PersonCar(1)/Person")["personID"] as? Int == 2)
        let links = #"<links xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices"><uri>Car(7)</uri></links>"#
        #expect(try send("PUT", "PersonCar(2)/$links/Car", links, contentType: "text/xml").status == 204)
        #expect(try gateway.entity("PersonCar(2)/Car")["carID"] as? Int == 7)
        let two = #"<links xmlns="http://schemas.microsoft.com/ado/2007/08/dataservices"><uri>Car(7)</uri><uri>Car(8)</uri></links>"#
        #expect(try send("PUT", "PersonCar(2)/$links/Car", two, contentType: "application/xml").status == 400)
    }

    @Test func badEntriesAre400AndWriteNothing() throws {
        let before = try gateway.tableContents()
        let bad: [(String, String, String)] = [
            ("malformed", String(Self.person.dropLast(3)), "malformed XML"),
            ("not an entry", #"<feed xmlns="http://www.w3.org/2005/Atom"/>"#, "Atom entry"),
            ("wrong m:type", Self.entry(type: "Person", properties: #"<d:firstName m:type="Edm.Int32">1</d:firstName><d:lastName>x</d:lastName><d:createDate>2009-11-01T12:00:00</d:createDate>"#), "m:type"),
            ("unknown property", Self.entry(type: "Person", properties: #"<d:nickname>x</d:nickname>"#), "nickname"),
            ("null not nullable", Self.entry(type: "Person", properties: #"<d:firstName m:null="true"/><d:lastName>x</d:lastName><d:createDate>2009-11-01T12:00:00</d:createDate>"#), "firstName"),
            ("bad date", Self.entry(type: "Person", properties: #"<d:firstName>a</d:firstName><d:lastName>x</d:lastName><d:createDate>yesterday</d:createDate>"#), "createDate"),
            ("wrong type", Self.entry(type: "Car", properties: #"<d:firstName>a</d:firstName>"#), "edmexampleModel.Car"),
            ("entity expansion", #"<?xml version="1.0"?><!DOCTYPE entry [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]><entry \#(Self.namespaces)><content type="application/xml"><m:properties><d:firstName>&b;</d:firstName></m:properties></content></entry>"#, "DOCTYPE"),
            ("external entity", #"<?xml version="1.0"?><!DOCTYPE entry [<!ENTITY e SYSTEM "file:///etc/passwd">]><entry \#(Self.namespaces)><content type="application/xml"><m:properties><d:firstName>&e;</d:firstName></m:properties></content></entry>"#, "DOCTYPE"),
            ("unknown navigation", Self.entry(type: "Person", properties: "", links: #"<link rel="\#(Self.related)Boat" href="Car(1)"/>"#), "Boat"),
            ("missing bound entity", Self.entry(type: "PersonCar", properties: #"<d:createStamp>2010-01-01T00:00:00</d:createStamp>"#,
                                                links: #"<link rel="\#(Self.related)Car" href="Car(9999)"/>"#), "Car(9999)"),
        ]
        for (what, body, mentioning) in bad {
            let target = what == "missing bound entity" ? "Person(1)/PersonCar" : "Person"
            let response = try send("POST", target, body, accept: "application/json")
            #expect([400, 404].contains(response.status), "\(what): \(response.status) \(response.text)")
            let message = (try? response.errorMessage()) ?? response.text
            #expect(message.contains(mentioning), "\(what): \(message)")
        }
        #expect(try send("MERGE", "Person(1)", "<entry", accept: "application/json").status == 400)
        #expect(try gateway.tableContents() == before, "nothing was written")
        // An Atom client hears of it in XML.
        let xmlError = try send("POST", "Person", "<entry")
        #expect(xmlError.status == 400 && xmlError.header("Content-Type")?.hasPrefix("application/xml") == true)
    }

    @Test func atomEntriesTakeTheSameWayThroughABatch() throws {
        let atom = ["Content-Type": "application/atom+xml;type=entry", "Accept": "application/atom+xml"]
        let ownership = Self.entry(type: "PersonCar", properties: #"<d:createStamp m:type="Edm.DateTime">2010-01-01T00:00:00</d:createStamp>"#,
                                   links: #"<link rel="\#(Self.related)Car" href="Car(7)"/>"#)
        let body = BatchTests.body([[
            BatchTests.Operation(method: "POST", uri: "Person", body: Self.person, contentID: "1", headers: atom),
            BatchTests.Operation(method: "POST", uri: "$1/PersonCar", body: ownership, contentID: "2", headers: atom),
        ]])
        let response = try gateway.send("POST", "$batch", text: body, headers: ["Content-Type": "multipart/mixed; boundary=batch_test"])
        #expect(response.status == 202, "\(response.text)")
        #expect(response.text.components(separatedBy: "HTTP/1.1 201").count == 3, "\(response.text)")
        #expect(response.text.contains("application/atom+xml;type=entry"))
        let cars = try #require(try gateway.get("Person(61)/PersonCar?$expand=Car").d() as? [[String: Any]])
        #expect((cars.first?["Car"] as? [String: Any])?["carID"] as? Int == 7)
    }
}
