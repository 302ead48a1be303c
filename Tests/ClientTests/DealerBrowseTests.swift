import Foundation
import RestConnection
import Testing

/// `dealer browse` driven through its standard input, as a person at a plain terminal would.
@Suite(.serialized) final class DealerBrowseTests {
    let gateway: GatewayProcess
    let dealer: URL

    init() throws {
        gateway = try GatewayProcess()
        dealer = try TestPaths.executable("dealer")
    }

    deinit {
        gateway.stop()
    }

    private func browse(_ input: String, pageSize: Int = 5) throws -> ProcessResult {
        try ProcessRunner.run(dealer, ["browse", "--url", gateway.root, "--page-size", String(pageSize)], stdin: input)
    }

    @Test func drillsDownAndBackUp() async throws {
        // Bob (1st), his Mustang (2nd), back to his cars, back to people, quit.
        let result = try browse("1\n2\nb\nb\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        let out = result.stdout
        let people = try #require(out.range(of: "1.   1  Samson, Bob"))
        let cars = try #require(out.range(of: "Samson, Bob (person 1)", range: people.upperBound..<out.endIndex))
        let maintenance = try #require(out.range(of: "Ford Mustang, owned by Samson, Bob (PersonCar 2)", range: cars.upperBound..<out.endIndex))
        let carsAgain = try #require(out.range(of: "Samson, Bob (person 1)", range: maintenance.upperBound..<out.endIndex))
        let total = try await gateway.peopleCount()
        #expect(out.range(of: "People 1-5 of \(total).", range: carsAgain.upperBound..<out.endIndex) != nil)
        #expect(out.contains("records, total cost") || out.contains("record, total cost"))
    }

    @Test func pagesThroughPeople() async throws {
        let total = try await gateway.peopleCount()
        let result = try browse("n\nn\np\nq\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains("People 6-10 of \(total)."))
        #expect(result.stdout.contains("People 11-15 of \(total)."))
        #expect(result.stdout.components(separatedBy: "People 6-10 of \(total).").count == 3, "back to page 2")
    }

    @Test func searchesPeople() throws {
        let result = try browse("/samson\n2\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Search: samson"))
        #expect(result.stdout.contains("People 1-2 of 2."))
        #expect(result.stdout.contains("Samson, Alice (person 2)"))
    }

    @Test func rejectsNonsenseAndEndsAtEndOfInput() throws {
        let result = try browse("99\nxyz\nb\n")
        #expect(result.status == 0)
        #expect(!result.crashed)
        #expect(result.stdout.contains("Not understood: 99. Type a row number from 1 to 5, an ID shown, or one of the letters above."))
        #expect(result.stdout.contains("Not understood: xyz."))
        // b is not offered at the top, so it is not understood either.
        #expect(result.stdout.contains("Not understood: b."))
    }

    @Test func lastPageSaysSo() async throws {
        let result = try browse("n\nq\n", pageSize: try await gateway.peopleCount())
        #expect(result.status == 0)
        #expect(result.stdout.contains("This is the last page."))
    }
}
