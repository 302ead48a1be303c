import Foundation
import Testing

/// What a browser gets: pages at the root, at a set and at an entity, linked so that a person
/// can drill down, with every value escaped; and OData clients never get one.
@Suite struct HTMLPageTests {
    static let browser = "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8"
    let gateway: TestGateway

    init() throws { gateway = try TestGateway { $0.defaultPageSize = 10 } }

    private func page(_ target: String) throws -> RawHTTPResponse {
        let response = try gateway.get(target, accept: Self.browser)
        #expect(response.header("Content-Type") == "text/html;charset=utf-8", "\(target): \(response.header("Content-Type") ?? "")")
        #expect(response.header("Content-Security-Policy")?.contains("default-src 'none'") == true)
        #expect(response.header("Vary") == "Accept")
        #expect(!response.text.contains("<script"), "\(target)")
        return response
    }

    @Test func theRootListsTheSets() throws {
        let root = try page("")
        #expect(root.status == 200)
        for set in ["Person", "Car", "PersonCar", "Maintenance", "PersonCarMaintenance"] {
            #expect(root.text.contains(#"<a href="\#(gateway.root)\#(set)">\#(set)</a>"#), "\(set)")
        }
        #expect(root.text.contains(#"href="\#(gateway.root)$metadata""#))
    }

    @Test func aSetIsATableWithPaging() throws {
        let first = try page("Person")
        #expect(first.status == 200)
        #expect(first.text.contains(#"<a href="\#(gateway.root)Person(1)">Person(1)</a>"#))
        #expect(first.text.contains(#"<a href="\#(gateway.root)Person(1)/PersonCar">PersonCar</a>"#))
        #expect(first.text.contains(#"rel="next" href="\#(gateway.root)Person?$skip=10""#))
        #expect(!first.text.contains(#"rel="prev""#))
        #expect(first.text.contains(#"name="$filter""#))
        let second = try page("Person?$skip=10")
        #expect(second.text.contains("Person(11)") && !second.text.contains(">Person(1)<"))
        #expect(second.text.contains(#"rel="prev" href="\#(gateway.root)Person""#))
        let last = try page("Person?$skip=50")
        #expect(!last.text.contains(#"rel="next""#))
        // A form's submission: the option's name percent-encoded, spaces as +.
        let filtered = try page("Person?%24filter=personID+eq+3+and+lastName+ne+%27x%27")
        #expect(filtered.status == 200)
        #expect(filtered.text.contains(">Person(3)<") && !filtered.text.contains(">Person(2)<"))
        #expect(filtered.text.contains(#"value="personID eq 3 and lastName ne &#39;x&#39;""#))
    }

    @Test func anEntityLinksItsNavigationProperties() throws {
        let person = try page("Person(1)")
        #expect(person.status == 200)
        #expect(person.text.contains("<th>firstName</th><td>Bob</td>"))
        #expect(person.text.contains(#"<a href="\#(gateway.root)Person(1)/PersonCar">PersonCar</a>"#))
        #expect(person.header("ETag")?.hasSuffix("-html\"") == true)
        let cars = try page("Person(1)/PersonCar")
        #expect(cars.text.contains(#"<a href="\#(gateway.root)PersonCar(1)/PersonCarMaintenance">PersonCarMaintenance</a>"#))
        #expect(cars.text.contains(#"<a href="\#(gateway.root)Person(1)">Person(1)</a>"#), "the trail leads back")
        let maintenance = try page("PersonCar(1)/PersonCarMaintenance")
        #expect(maintenance.status == 200 && maintenance.text.contains("PersonCarMaintenance("))
    }

    @Test func errorsArePagesAndABadFilterIsShownBesideItsBox() throws {
        let bad = try page("Person?$filter=" + TestGateway.percentEncoded("lastName eq 'x"))
        #expect(bad.status == 400)
        #expect(bad.text.contains(#"class="error""#) && bad.text.contains("$filter"))
        #expect(bad.text.contains(#"value="lastName eq &#39;x""#), "the filter stays in its box")
        let missing = try page("Person(999)")
        #expect(missing.status == 404 && missing.text.contains("NotFound"))
    }

    @Test func everyValueIsEscaped() throws {
        let created = try gateway.send("POST", "Person", json: [
            "firstName": "<script>alert(1)</script>", "lastName": "\"quoted\" & 'single'", "createDate": "/Date(0)/",
        ])
        #expect(created.status == 201)
        let person = try page("Person(61)")
        #expect(person.text.contains("&lt;script&gt;alert(1)&lt;/script&gt;"))
        #expect(person.text.contains("&quot;quoted&quot; &amp; &#39;single&#39;"))
        let listed = try page("Person?$filter=" + TestGateway.percentEncoded("personID eq 61 or firstName eq '<b>'"))
        #expect(listed.text.contains("&lt;script&gt;") && !listed.text.contains("<b>"))
    }

    @Test func theLimitsOfOtherFormatsHold() throws {
        let limited = try TestGateway { $0.limits.maxEntitiesPerResponse = 5 }
        let response = try limited.get("Person", accept: Self.browser)
        #expect(response.status == 400)
        #expect(response.header("Content-Type")?.hasPrefix("text/html") == true)
    }

    @Test func odataClientsNeverGetHTML() throws {
        for accept in ["application/json", "application/atom+xml", "application/xml", "text/xml", "*/*", "",
                       "text/html;q=0.5, application/json", "text/html, application/json", "application/atom+xml, text/html;q=0.9"] {
            for target in ["", "Person", "Person(1)", "Person(999)"] {
                let response = try gateway.request("GET", target, headers: accept.isEmpty ? [:] : ["Accept": accept])
                #expect(response.header("Content-Type")?.hasPrefix("text/html") != true, "\(accept) \(target)")
            }
        }
        // $format names the format, whatever the browser accepts.
        #expect(try gateway.get("Person(1)?$format=json", accept: Self.browser).header("Content-Type")?.hasPrefix("application/json") == true)
        // $metadata stays XML.
        #expect(try gateway.get("$metadata", accept: Self.browser).header("Content-Type")?.hasPrefix("application/xml") == true)
    }
}
