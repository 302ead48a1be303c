import Foundation
import RestConnection
import Testing
@testable import Dealer

/// Against a gateway that pages every answer at 7 rows: `dealer` follows `__next` until the
/// rows asked for have arrived, and `browse` moves on by the rows it showed.
@Suite(.serialized) final class DealerPagingTests {
    static let serverPageSize = 7
    let gateway: GatewayProcess
    let dealer: URL

    init() throws {
        gateway = try GatewayProcess(extraArguments: ["--page-size", String(DealerPagingTests.serverPageSize)])
        dealer = try TestPaths.executable("dealer")
    }

    deinit {
        gateway.stop()
    }

    /// The ID column of `dealer`'s people table.
    private func ids(_ output: String, numbered: Bool = false) -> [Int] {
        output.split(separator: "\n").compactMap { line -> Int? in
            let fields = line.split(separator: " ")
            guard fields.count >= (numbered ? 2 : 1) else { return nil }
            return Int(fields[numbered ? 1 : 0])
        }
    }

    @Test func topFollowsTheServersPages() async throws {
        let total = try await gateway.peopleCount()
        #expect(total > 20)
        let result = try ProcessRunner.run(dealer, ["people", "--top", "20", "--url", gateway.root])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ids(result.stdout) == Array(1...20))
        #expect(result.stdout.contains("People 1-20 of \(total)."))
    }

    @Test func searchShowsEveryMatch() async throws {
        let connection = RestConnection(baseURL: gateway.serviceRoot)
        let matches = try await connection.count("Person/$count", query: [URLQueryItem(name: "$filter", value: DealerService.nameFilter("a").text)])
        #expect(matches > DealerPagingTests.serverPageSize)
        let result = try ProcessRunner.run(dealer, ["people", "--search", "a", "--url", gateway.root])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ids(result.stdout).count == matches)
        #expect(result.stdout.contains("People 1-\(matches) of \(matches)."))
    }

    @Test func jsonFollowsTheServersPagesIntoOneDocument() async throws {
        let total = try await gateway.peopleCount()
        let result = try ProcessRunner.run(dealer, ["people", "--top", "20", "--json", "--url", gateway.root])
        #expect(result.status == 0, "\(result.stderr)")
        let root = try JSONDecoder().decode(JSONValue.self, from: Data(result.stdout.utf8))
        guard case .object(let d)? = root["d"], case .array(let rows)? = d["results"] else {
            Issue.record("not one OData collection: \(result.stdout.prefix(200))")
            return
        }
        #expect(rows.compactMap { $0["personID"]?.intValue } == Array(1...20).map(Int64.init))
        #expect(d["__count"] == .string(String(total)))
        #expect(d["__next"] == nil)

        let everyone = try ProcessRunner.run(dealer, ["people", "--json", "--url", gateway.root])
        let all = try JSONDecoder().decode(JSONValue.self, from: Data(everyone.stdout.utf8))
        guard case .object(let allD)? = all["d"], case .array(let allRows)? = allD["results"] else {
            Issue.record("not one OData collection: \(everyone.stdout.prefix(200))")
            return
        }
        #expect(allRows.count == total)
    }

    @Test func everyoneWithoutOptions() async throws {
        let total = try await gateway.peopleCount()
        let result = try ProcessRunner.run(dealer, ["people", "--url", gateway.root])
        #expect(ids(result.stdout) == Array(1...total))
    }

    @Test func browseNeverPassesPeopleOver() async throws {
        let total = try await gateway.peopleCount()
        let result = try ProcessRunner.run(dealer, ["browse", "--page-size", "10", "--url", gateway.root], stdin: "n\nn\nq\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(ids(result.stdout, numbered: true) == Array(1...30))
        #expect(result.stdout.contains("People 11-20 of \(total)."))
        #expect(result.stdout.contains("People 21-30 of \(total)."))
    }

    @Test func allIsAnAsyncSequenceOverEveryPage() async throws {
        let connection = RestConnection(baseURL: gateway.serviceRoot)
        var seen: [Int32] = []
        for try await person in connection.all(Person.self, query: ODataQuery(orderBy: [.ascending("personID")])) {
            seen.append(person.personID)
        }
        #expect(seen == (1...Int32(try await gateway.peopleCount())).map { $0 })
        // Stopping early fetches no more pages than needed.
        var firstTen: [Int32] = []
        for try await person in connection.all(Person.self) {
            firstTen.append(person.personID)
            if firstTen.count == 10 { break }
        }
        #expect(firstTen == Array(1...10))
    }
}
