import Foundation
import RestConnection
import Testing
@testable import Dealer

/// Query values reach the gateway as written, whichever way they are given: the typed builder,
/// `query:` items with `odataLiteralText`, or a path typed as text. One encoding path, tried with
/// quotes, `&`, `+`, `#`, `%`, `/`, `;`, `=` and Unicode.
@Suite(.serialized) final class QueryEncodingTests {
    static let awkwardNames = ["O'Brien & Sons", "a+b", "#1", "100% Cotton", "Hernández", "Ab/Cd", "日本語", "x=y;z", "it''s"]

    let gateway: GatewayProcess
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    private func createPeople() async throws -> [String: Int32] {
        var ids: [String: Int32] = [:]
        for name in QueryEncodingTests.awkwardNames {
            let person = try await connection.create(Person(firstName: "Q", lastName: name, createDate: Date(timeIntervalSince1970: 0)))
            ids[name] = person.personID
        }
        return ids
    }

    @Test func builderFiltersFindEachName() async throws {
        let ids = try await createPeople()
        for name in QueryEncodingTests.awkwardNames {
            let query = ODataQuery(filter: .property("lastName") == name && .property("firstName") == "Q", select: ["personID", "lastName"])
            let found = try await connection.getAll(JSONObject.self, "Person", query: query.items)
            #expect(found.map { $0["lastName"]?.stringValue } == [name], "\(name)")
            let contains = ODataQuery(filter: .substringOf(name, .property("lastName")) && .property("firstName") == "Q")
            let matched = try await connection.getAll(Person.self, "Person", query: contains.items)
            #expect(matched.map(\.personID).contains(ids[name]!), "substringof \(name)")
        }
    }

    @Test func queryItemsWithTheUnencodedLiteral() async throws {
        _ = try await createPeople()
        for name in QueryEncodingTests.awkwardNames {
            let items = [URLQueryItem(name: "$filter", value: "lastName eq \(name.odataLiteralText) and firstName eq 'Q'")]
            let found = try await connection.getAll("Person", query: items)
            #expect(found.map { $0["lastName"]?.stringValue } == [name], "\(name)")
        }
    }

    @Test func pathsTypedAsText() async throws {
        _ = try await createPeople()
        for name in QueryEncodingTests.awkwardNames {
            let found = try await connection.getAll("Person?$filter=lastName eq \(name.odataLiteralText) and firstName eq 'Q'")
            #expect(found.map { $0["lastName"]?.stringValue } == [name], "\(name)")
        }
        let ampersand = try await connection.getAll("Person?$filter=substringof('O''Brien & S',lastName)&$top=5")
        #expect(ampersand.map { $0["lastName"]?.stringValue } == ["O'Brien & Sons"])
    }

    @Test func keyLiteralsInPathsStillEncodeForAPath() {
        #expect("a/b".odataLiteral == "'a%2Fb'")
        #expect("a/b".odataLiteralText == "'a/b'")
        let filter: ODataFilter = .property("lastName") == "O'Brien" && !(.property("personID") > 3)
        #expect(filter.text == "(lastName eq 'O''Brien') and (not (personID gt 3))")
        let query = ODataQuery(filter: .startsWith(.property("lastName").lowercased(), "o'b"), orderBy: [.descending("createDate")],
                               select: ["lastName"], expand: ["PersonCar/Car"], top: 5, skip: 10, inlineCount: true)
        #expect(query.items.map { "\($0.name)=\($0.value ?? "")" } == [
            "$filter=startswith(tolower(lastName),'o''b')", "$orderby=createDate desc", "$select=lastName",
            "$expand=PersonCar/Car", "$top=5", "$skip=10", "$inlinecount=allpages",
        ])
    }
}
