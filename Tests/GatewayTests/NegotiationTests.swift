import Foundation
import Testing
#if canImport(FoundationXML)
import FoundationXML
#endif

/// What caches and proxies need to keep representations apart, and the negotiation of errors
/// and of `text/xml`.
@Suite struct NegotiationTests {
    let gateway: TestGateway

    init() throws { gateway = try TestGateway() }

    @Test func negotiatedAnswersVaryOnAccept() throws {
        for (target, accept) in [("Person(1)", "application/json"), ("Person(1)", "application/atom+xml"), ("Person?$top=1", "*/*"),
                                 ("", "application/xml"), ("Person(1)/PersonCar", "application/json")] {
            let response = try gateway.get(target, accept: accept)
            #expect(response.status == 200, "\(target)")
            #expect(response.header("Vary") == "Accept", "\(target) \(accept)")
        }
        let missing = try gateway.get("Person(999)")
        #expect(missing.status == 404)
        #expect(missing.header("Vary") == "Accept")
    }

    @Test func textXMLIsAnsweredAsApplicationXML() throws {
        let entry = try gateway.get("Person(1)", accept: "text/xml")
        #expect(entry.status == 200)
        #expect(entry.header("Content-Type")?.hasPrefix("application/atom+xml") == true)
        let root = try gateway.get("", accept: "text/xml")
        #expect(root.status == 200)
        #expect(root.header("Content-Type")?.hasPrefix("application/atomsvc+xml") == true)
    }

    @Test func errorsFollowTheNegotiationOfData() throws {
        // An XML client hears of its errors in XML (MS-ODATA's <m:error>).
        let xmlError = try gateway.get("Person(999)", accept: "application/atom+xml,application/xml")
        #expect(xmlError.status == 404)
        #expect(xmlError.header("Content-Type")?.hasPrefix("application/xml") == true)
        let document = try XMLDocument(data: Data(xmlError.body))
        #expect(document.rootElement()?.localName == "error")
        #expect(document.rootElement()?.uri == "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata")
        // A browser, in a page.
        let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
        let page = try gateway.get("Person(999)", accept: browser)
        #expect(page.status == 404)
        #expect(page.header("Content-Type")?.hasPrefix("text/html") == true)
        for accept in ["text/xml", "application/atom+xml"] {
            #expect(try gateway.get("Person(999)", accept: accept).header("Content-Type")?.hasPrefix("application/xml") == true, "\(accept)")
        }
        // $format names the error's format too.
        #expect(try gateway.get("Person(999)?$format=atom", accept: "application/json").header("Content-Type")?.hasPrefix("application/xml") == true)
        #expect(try gateway.get("Person(999)?$format=json", accept: browser).header("Content-Type")?.hasPrefix("application/json") == true)
        for accept in ["application/json", "*/*", "application/json, application/xml", "text/csv"] {
            let response = try gateway.get("Person(999)", accept: accept)
            #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, "\(accept)")
            _ = try response.errorMessage()
        }
    }
}
