import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Atom for the clients that ask for it (Excel's OData feed of a V2 service does): feeds,
/// entries, inline expansion, paging, single properties and links, read back as XML.
@Suite struct AtomTests {
    static let atom = "http://www.w3.org/2005/Atom"
    static let d = "http://schemas.microsoft.com/ado/2007/08/dataservices"
    static let m = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"

    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway {
        try TestGateway(engine: engine) { $0.defaultPageSize = 25 }
    }

    private func document(_ gateway: TestGateway, _ target: String, accept: String = "application/atom+xml") throws -> (RawHTTPResponse, XMLDocument) {
        let response = try gateway.get(target, accept: accept)
        #expect(response.status == 200, "\(target): \(response.text.prefix(300))")
        return (response, try XMLDocument(data: Data(response.body)))
    }

    private func nodes(_ node: XMLNode, _ xpath: String) throws -> [XMLNode] { try node.nodes(forXPath: xpath) }

    /// Local-name XPath, so that the test does not depend on prefixes.
    private func name(_ local: String) -> String { "*[local-name()='\(local)']" }

    @Test(arguments: TestGateway.engines) func feedOfPeopleWithCountInlineCarsAndNextLink(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let (response, xml) = try document(gateway, "Person?$expand=PersonCar&$inlinecount=allpages")
        #expect(response.header("Content-Type")?.hasPrefix("application/atom+xml") == true)
        #expect(response.header("DataServiceVersion") == "2.0;")
        let root = try #require(xml.rootElement())
        #expect(root.localName == "feed" && root.uri == Self.atom)
        #expect(try nodes(root, name("count")).first?.stringValue == "60")
        let entries = try nodes(root, name("entry"))
        #expect(entries.count == 25, "the server page")
        let next = try nodes(root, "\(name("link"))[@rel='next']/@href").first?.stringValue
        #expect(next?.contains("$skiptoken=25") == true)

        let bob = entries[0]
        #expect(try nodes(bob, name("id")).first?.stringValue == gateway.root + "Person(1)")
        #expect(try nodes(bob, "\(name("category"))/@term").first?.stringValue == "edmexampleModel.Person")
        let properties = "\(name("content"))/\(name("properties"))/"
        #expect(try nodes(bob, properties + name("lastName")).first?.stringValue == "Samson")
        let id = try #require(try nodes(bob, properties + name("personID")).first as? XMLElement)
        #expect(id.stringValue == "1")
        #expect(id.attribute(forLocalName: "type", uri: Self.m)?.stringValue == "Edm.Int32")
        #expect(try nodes(bob, properties + name("createDate")).first?.stringValue == "2009-10-31T17:08:28.440")
        let inlineCars = try nodes(bob, "\(name("link"))[@title='PersonCar']/\(name("inline"))/\(name("feed"))/\(name("entry"))")
        #expect(inlineCars.count == 2)
        #expect((bob as? XMLElement)?.attribute(forLocalName: "etag", uri: Self.m)?.stringValue?.hasPrefix("W/\"") == true)
    }

    /// Atom is written from each entity's row in place where JSON is (a page whose expansions
    /// are joined, a single entity whose expanded collections are read as they are written),
    /// and from the rows an `EntityCursor` keeps elsewhere: the entries are the same either way.
    @Test(arguments: TestGateway.engines) func entriesReadInPlaceAndFromRecordsAgree(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        func entries(_ target: String, _ xpath: String) throws -> [String] {
            let (response, xml) = try document(gateway, TestGateway.encodeQuery(target))
            #expect(response.header("ETag") == nil || response.header("ETag")?.hasPrefix("W/\"") == true)
            // The stamps, of the entry and of every entry and feed inlined in it, are the time of
            // writing, which a slow run sees change between two requests; everything else must match.
            return try nodes(xml.rootElement()!, xpath).map { node in
                node.xmlString.replacingOccurrences(of: "<updated>[^<]*</updated>", with: "<updated></updated>", options: .regularExpression)
            }
        }
        // A page whose collection expansion is read by key list (a cursor) against single entities
        // with Car joined to their row and their collection read as written (in place).
        let page = try entries("Person(1)/PersonCar?$expand=Car,PersonCarMaintenance", "/\(name("feed"))/\(name("entry"))")
        #expect(page.count == 2)
        let keys = try document(gateway, "Person(1)/PersonCar?$select=personCarID").1.rootElement()!
            .nodes(forXPath: "//\(name("properties"))/\(name("personCarID"))").compactMap(\.stringValue)
        let singles = try keys.map { try entries("PersonCar(\($0))?$expand=Car,PersonCarMaintenance", "/\(name("entry"))")[0] }
        #expect(page.map { $0.replacingOccurrences(of: " xmlns[^ >]*", with: "", options: .regularExpression) }
                == singles.map { $0.replacingOccurrences(of: " xmlns[^ >]*| xml:base=\"[^\"]*\"", with: "", options: .regularExpression) })
        // A page with Car joined to each row, in place, against the same page
        // with an expansion below Car read by key list (a cursor): the PersonCars agree.
        let joinedPage = try entries("Person(1)/PersonCar?$expand=Car", "/\(name("feed"))/\(name("entry"))/\(name("content"))")
        let recordPage = try entries("Person(1)/PersonCar?$expand=Car/PersonCar", "/\(name("feed"))/\(name("entry"))/\(name("content"))")
        #expect(joinedPage.count == 2 && joinedPage == recordPage)
        // A single entity with its collection read as written (in place) against the same entity
        // in a page whose collection expansion is read by key list (a cursor).
        let single = try entries("Person(1)?$expand=PersonCar", "/\(name("entry"))")
        let listed = try entries("Person?$filter=personID eq 1&$expand=PersonCar", "/\(name("feed"))/\(name("entry"))")
        #expect(single.map { $0.replacingOccurrences(of: " xmlns[^ >]*| xml:base=\"[^\"]*\"", with: "", options: .regularExpression) }
                == listed.map { $0.replacingOccurrences(of: " xmlns[^ >]*", with: "", options: .regularExpression) })
        #expect(single.first?.contains("PersonCar(") == true, "the expanded PersonCars are inline")
    }

    @Test(arguments: TestGateway.engines) func entryPropertyAndLinksDocuments(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let (_, entry) = try document(gateway, "Car(2)?$format=atom", accept: "application/json")
        #expect(entry.rootElement()?.localName == "entry")
        #expect(try nodes(entry.rootElement()!, "\(name("link"))[@title='PersonCar']/@href").first?.stringValue == "Car(2)/PersonCar")

        let (_, property) = try document(gateway, "Person(1)/ssn", accept: "application/xml")
        #expect(property.rootElement()?.localName == "ssn" && property.rootElement()?.uri == Self.d)
        #expect(property.rootElement()?.stringValue == "543872934")

        let (_, links) = try document(gateway, "Person(1)/$links/PersonCar")
        let uris = try nodes(links.rootElement()!, name("uri")).map(\.stringValue)
        #expect(uris == [gateway.root + "PersonCar(1)", gateway.root + "PersonCar(2)"])
    }

    @Test(arguments: TestGateway.engines) func nullsAndEveryTypeOfTheSecondSchema(engine: TestGateway.Engine) throws {
        let inventory = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                        seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        let response = try inventory.get("Items(1L)", accept: "application/atom+xml")
        let xml = try XMLDocument(data: Data(response.body))
        func value(_ property: String) throws -> (String?, String?) {
            let element = try xml.rootElement()!.nodes(forXPath: "\(name("content"))/\(name("properties"))/\(name(property))").first as? XMLElement
            return (element?.stringValue, element?.attribute(forLocalName: "type", uri: Self.m)?.stringValue)
        }
        #expect(try value("Photo") == ("AAEC/w==", "Edm.Binary"))
        #expect(try value("InStock") == ("true", "Edm.Boolean"))
        #expect(try value("Price") == ("12.345", "Edm.Decimal"))
        #expect(try value("Big") == ("9007199254740993", "Edm.Int64"))
        #expect(try value("Audited") == ("2009-11-01T10:30:00+01:00", "Edm.DateTimeOffset"), "with the offset it was given")
        #expect(try value("PickTime") == ("PT13H20M", "Edm.Time"))
        #expect(try value("Label") == ("Bolt", nil))
        let nullItem = try XMLDocument(data: Data(try inventory.get("Items(2L)", accept: "application/atom+xml").body))
        let photo = try nullItem.rootElement()!.nodes(forXPath: "\(name("content"))/\(name("properties"))/\(name("Photo"))").first as? XMLElement
        #expect(photo?.attribute(forLocalName: "null", uri: Self.m)?.stringValue == "true")
    }

    @Test(arguments: TestGateway.engines) func jsonStaysTheDefaultAndWritesAnswerAsAsked(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        #expect(try gateway.get("Person(1)", accept: "*/*").header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(try gateway.get("Person(1)", accept: "application/json, application/atom+xml").header("Content-Type")?.hasPrefix("application/json") == true)
        #expect(try gateway.get("Person(1)", accept: "text/csv").status == 406)
        let body = Array(#"{"firstName":"A","lastName":"B","createDate":"\/Date(0)\/"}"#.utf8)
        // The body's type is judged before the answer's: 415, not 406, for a body it cannot read.
        let unreadable = try gateway.request("POST", "Person", headers: ["Accept": "text/csv", "Content-Type": "text/csv"], body: body)
        #expect(unreadable.status == 415)
        let undeliverable = try gateway.request("POST", "Person", headers: ["Accept": "text/csv", "Content-Type": "application/json"], body: body)
        #expect(undeliverable.status == 406)
        #expect(try gateway.get("Person/$count").text == "60", "nothing was written")
        let post = try gateway.request("POST", "Person", headers: ["Accept": "application/atom+xml", "Content-Type": "application/json"], body: body)
        #expect(post.status == 201)
        #expect(post.header("Content-Type")?.hasPrefix("application/atom+xml;type=entry") == true)
        let entry = try XMLDocument(data: Data(post.body)).rootElement()
        #expect(entry?.localName == "entry")
        #expect(try gateway.get("Person/$count").text == "61")
    }
}
