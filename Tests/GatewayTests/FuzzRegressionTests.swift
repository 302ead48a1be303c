import CSDL
import EDM
import Foundation
import ODataSerialization
import ODataURI
import Testing

/// Inputs that scripts/fuzz found crashing the gateway's parsers, each fed through the parser's
/// public API: every one must now be refused with the parser's own error, not trap.
@Suite struct FuzzRegressionTests {
    static let inventory = try! ModelLoader.load(contentsOf: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"))
    var item: EntityType { Self.inventory.entitySet(named: "Items")!.entityType }

    /// An Edm.Time whose duration adds up past Int64 milliseconds (or to infinity) trapped in the
    /// conversion from Double, in request bodies and in URI literals alike.
    @Test(arguments: ["P66666666666T13019M30.20S", "PT99999999999999999999H", "PT" + String(repeating: "9", count: 400) + "S"])
    func durationPastInt64InABody(_ duration: String) throws {
        let deserializer = EntityDeserializer(serviceRoot: "http://host/CarDealer.svc/")
        let body = #"{"Label":"L","PickTime":"\#(duration)"}"#
        #expect(throws: PayloadError.self) { try deserializer.entity(from: Array(body.utf8), of: item) }
    }

    /// A Decimal written with an exponent of more than four digits is a valid JSON number that
    /// the exact decimal reading refuses; it was unwrapped as if it could not be.
    @Test(arguments: ["1.5e2444444444444444444", "1e99999", "-2E-123456"])
    func decimalWithAHugeExponentInABody(_ number: String) throws {
        let deserializer = EntityDeserializer(serviceRoot: "http://host/CarDealer.svc/")
        let body = #"{"Label":"L","Price":\#(number)}"#
        let error = #expect(throws: PayloadError.self) { try deserializer.entity(from: Array(body.utf8), of: item) }
        #expect(error?.message.contains("out of range") == true)
    }

    /// The URI's literals share that reading; a skip token is where a time'…' of any length
    /// reaches it.
    @Test(arguments: ["P66666666666T13019M30.20S", "PT99999999999999999999H", "-PT" + String(repeating: "9", count: 400) + "S"])
    func durationPastInt64InASkipToken(_ duration: String) throws {
        let parser = UriParser(model: Self.inventory)
        do throws(URIError) {
            _ = try parser.parse(path: "Items", query: "$orderby=PickTime&$skiptoken=time'\(duration)',1L")
            Issue.record("time'\(duration)' was accepted")
        } catch {
            #expect(error.kind == .badRequest)
        }
    }

    /// Foundation's XMLParser traps on an element name that is not UTF-8.
    @Test func edmxThatIsNotUTF8() throws {
        let declared = Array(#"<?xml version="1.0" encoding="utf-8"?>"#.utf8) + [0x0A]
        for document in [[0x3C, 0xFF, 0xFF, 0xFF, 0xFF], declared + [0x3C, 0x65, 0xC3, 0x28, 0x2F, 0x3E]] as [[UInt8]] {
            let error = #expect(throws: CSDLReadError.self) { try CSDLReader.read(data: Data(document)) }
            #expect(error?.description.contains("not UTF-8") == true)
        }
    }

    /// Foundation's XMLParser crashes on a processing instruction without data (strlen of a
    /// null pointer); the fuzzer's input is refused as malformed instead.
    @Test func edmxWithAnEmptyProcessingInstruction() throws {
        let found = try #require(Data(base64Encoded: "PD94bT8+CjxlZG14OkVkbXggVm5pPWVzcm8iAAAAADEuMCIgeGgBAAAAaXA9ImlvbjpTZXlzIHRoYXQgdGhlY2FidWxhcmllczoKICAtIGlubm90YWVzL21n"))
        for document in [found, Data("<edmx:Edmx><?pi?></edmx:Edmx>".utf8)] {
            let error = #expect(throws: CSDLReadError.self) { try CSDLReader.read(data: document) }
            #expect(error?.description.contains("processing instruction") == true)
        }
    }

    /// The check above leaves a document in another encoding, announced by its byte-order mark,
    /// to the XML parser.
    @Test func edmxInUTF16StillReads() throws {
        let text = try String(contentsOf: TestGateway.carDealerSchema, encoding: .utf8)
            .replacingOccurrences(of: #"encoding="utf-8""#, with: #"encoding="utf-16""#)
        let document = try #require(text.data(using: .utf16))  // with a byte-order mark
        let model = try ModelLoader.load(CSDLReader.read(data: document))
        #expect(model.entitySet(named: "Person") != nil)
    }
}
