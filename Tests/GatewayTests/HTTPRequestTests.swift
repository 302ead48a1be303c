@testable import HTTPCore
@testable import ODataHTTP
import Testing

/// The header fields the service reads are found once, when a request is made (`HeaderIndex`);
/// a lookup by `KnownHeader` must answer exactly what the search by name answers, whether the
/// request was made with the service's index or without one.
@Suite struct HTTPRequestTests {
    /// The header names as clients spell them, for every known header.
    private static let spellings: [KnownHeader: String] = [
        .accept: "Accept", .host: "Host", .dataServiceVersion: "DataServiceVersion",
        .maxDataServiceVersion: "MaxDataServiceVersion", .ifMatch: "If-Match", .ifNoneMatch: "If-None-Match",
        .origin: "Origin", .contentType: "Content-Type", .xHTTPMethod: "X-HTTP-Method",
        .accessControlRequestHeaders: "Access-Control-Request-Headers",
    ]

    @Test func everyKnownHeaderIsFoundAsTheNameSearchFindsIt() throws {
        #expect(Self.spellings.count == KnownHeader.allCases.count)
        for known in KnownHeader.allCases {
            let name = try #require(Self.spellings[known])
            // Among look-alikes: same length, or a prefix of the name.
            let headers = [name.dropLast() + "_": "same length", String(name.dropLast()): "prefix", name.uppercased(): "value of \(name)"]
            for index in [ODataService.headerIndex, .none] {
                let request = HTTPRequest(method: "GET", target: "/", headers: headers, index: index)
                #expect(request.header(known) == "value of \(name)")
                #expect(request.header(known) == request.header(name))
                #expect(HTTPRequest(method: "GET", target: "/", headers: ["Other": "x"], index: index).header(known) == nil)
            }
        }
    }

    /// Content-Length, which the server reads for every request, is indexed whatever the
    /// application's index holds.
    @Test func contentLengthIsIndexedByEveryIndex() {
        for index in [ODataService.headerIndex, .none, HeaderIndex(["X-One", "content-length"])] {
            let request = HTTPRequest(method: "POST", target: "/", headerFields: [("x-one", "1"), ("content-length", "12")], index: index)
            #expect(request.contentLength == "12")
            #expect(HTTPRequest(method: "POST", target: "/", headerFields: [("x-one", "1")], index: index).contentLength == nil)
        }
        // A slot of the index, and one past it, which is searched for by name.
        let request = HTTPRequest(method: "GET", target: "/", headerFields: [("x-two", "2"), ("x-one", "1")], index: HeaderIndex(["X-One"]))
        #expect(request.header(slot: 0, name: "x-one") == "1")
        #expect(request.header(slot: 1, name: "x-two") == "2")
    }

    @Test func theFirstOfRepeatedFieldsCounts() {
        let request = HTTPRequest(method: "GET", target: "/", headerFields: [
            ("user-agent", "test"), ("accept", "application/json"), ("accept", "application/xml"),
        ], index: ODataService.headerIndex)
        #expect(request.header(.accept) == "application/json")
        #expect(request.header("Accept") == "application/json")
        #expect(request.header(.host) == nil)
    }

    /// Positions are kept in a byte each: a field past the 255th is found all the same.
    @Test func aFieldPastTheTwoHundredFiftyFifthIsFound() {
        let fields = (0..<300).map { (name: "x-filler-\($0)", value: "\($0)") } + [(name: "accept", value: "text/plain")]
        let request = HTTPRequest(method: "GET", target: "/", headerFields: fields, index: ODataService.headerIndex)
        #expect(request.header(.accept) == "text/plain")
        #expect(request.header(.host) == nil)
    }

    /// The target is kept as the bytes received; its text, path and query are made from them
    /// (bytes that are not UTF-8 repaired), and the root is compared with the bytes.
    @Test func theTargetIsItsBytesAndItsTextIsMadeFromThem() {
        let request = HTTPRequest(method: "GET", target: "/CarDealer.svc/Person?$filter=lastName eq 'Caf\u{E9}'&$top=2")
        #expect(request.targetBytes == Array("/CarDealer.svc/Person?$filter=lastName eq 'Caf\u{E9}'&$top=2".utf8))
        #expect(request.path == "/CarDealer.svc/Person")
        #expect(request.query == "$filter=lastName eq 'Caf\u{E9}'&$top=2")
        #expect(request.pathIsBelow("/CarDealer.svc"))

        let invalid = Array("/CarDealer.svc/Person('".utf8) + [0xC3] + Array("')?$top=1".utf8)
        let received = HTTPRequest(method: "GET", targetBytes: invalid, headerFields: [], knownFields: HeaderIndex.none.positions(in: []), body: [])
        #expect(received.targetBytes == invalid)
        #expect(received.target == "/CarDealer.svc/Person('\u{FFFD}')?$top=1")
        #expect(received.path == "/CarDealer.svc/Person('\u{FFFD}')")
        #expect(received.query == "$top=1")
        #expect(received.pathIsBelow("/CarDealer.svc"))
        #expect(HTTPRequest(method: "GET", target: "/CarDealer.svc").query == "")
    }

    /// The service root is a whole path segment: `/CarDealer.svcX` is not below `/CarDealer.svc`,
    /// and a `?` or `/` right after it ends the root.
    @Test func aPathIsBelowARootOnlyAtASegmentBoundary() {
        let root = "/CarDealer.svc"
        let below = ["/CarDealer.svc", "/CarDealer.svc/", "/CarDealer.svc/Person(1)", "/CarDealer.svc?$format=json",
                     "/CarDealer.svc/?x=/Other", "/CarDealer.svc/Person?$filter=a eq '/'"]
        let notBelow = ["/", "", "/CarDealer.sv", "/CarDealer.svcX", "/CarDealer.svcX/Person", "/Other.svc/CarDealer.svc",
                        "/cardealer.svc/Person", "/Other?/CarDealer.svc", "CarDealer.svc/Person"]
        for target in below { #expect(HTTPRequest(method: "GET", target: target).pathIsBelow(root), "\(target)") }
        for target in notBelow { #expect(!HTTPRequest(method: "GET", target: target).pathIsBelow(root), "\(target)") }
        // An empty root has every absolute path below it; a root of other bytes is compared as bytes.
        #expect(HTTPRequest(method: "GET", target: "/x").pathIsBelow(""))
        #expect(HTTPRequest(method: "GET", target: "/Caf\u{E9}.svc/x").pathIsBelow("/Caf\u{E9}.svc"))
        #expect(!HTTPRequest(method: "GET", target: "/Cafe.svc/x").pathIsBelow("/Caf\u{E9}.svc"))
    }
}
