import Foundation
import RestConnection
import Testing

/// `dealer` run as a process against a real gateway: output, exit status, failures.
@Suite(.serialized) final class DealerCommandTests {
    let gateway: GatewayProcess
    let dealer: URL

    init() throws {
        gateway = try GatewayProcess()
        dealer = try TestPaths.executable("dealer")
    }

    deinit {
        gateway.stop()
    }

    private func run(_ arguments: [String], url: String? = nil, environment: [String: String] = [:]) throws -> ProcessResult {
        try ProcessRunner.run(dealer, arguments + ["--url", url ?? gateway.root], environment: environment)
    }

    /// The column at which `text` starts in each line that has it.
    private func column(of text: String, in line: Substring) -> Int? {
        line.range(of: text).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
    }

    @Test func peopleListsNamesWithIDsInColumns() async throws {
        let result = try run(["people"])
        #expect(result.status == 0)
        #expect(result.stderr.isEmpty)
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.first == "ID  Name")
        #expect(lines.contains(" 1  Samson, Bob"))
        // Names line up under the header, whatever the width of the ID.
        let nameColumn = column(of: "Name", in: lines[0])
        for line in lines.dropFirst() {
            #expect(line.firstIndex(of: ",").map { _ in true } == true)
            let id = line.prefix(while: { $0 == " " || $0.isNumber })
            #expect(id.count == nameColumn, "\(line)")
        }
        #expect(lines.count - 1 == (try await gateway.peopleCount()), "every person, through all of the server's pages")
    }

    @Test func peoplePagesWithTopAndSkip() async throws {
        let result = try run(["people", "--top", "2", "--skip", "1"])
        #expect(result.status == 0)
        #expect(result.stdout == """
            ID  Name
             2  Samson, Alice
             3  Gonzalez, Maria

            People 2-3 of \(try await gateway.peopleCount()).

            """)
    }

    @Test func peopleSearchFilters() throws {
        let result = try run(["people", "--search", "SAMS"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(" 1  Samson, Bob"))
        #expect(result.stdout.contains(" 2  Samson, Alice"))
        #expect(!result.stdout.contains("Gonzalez"))
        #expect(result.stdout.contains("of 2."))
    }

    @Test func peopleJSONIsTheRawResponse() async throws {
        let result = try run(["people", "--json", "--top", "1"])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let d = try #require(json?["d"] as? [String: Any])
        #expect((d["results"] as? [Any])?.count == 1)
        #expect(d["__count"] as? String == String(try await gateway.peopleCount()))
    }

    @Test func carsListsAPersonsCars() throws {
        let result = try run(["cars", "1"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("Samson, Bob (person 1)\n"))
        #expect(result.stdout.contains("""
            ID  Make  Model     Built       Owned since
             1  Ford  Explorer  2004-10-31  2009-11-01
             2  Ford  Mustang   2004-02-02  2009-11-01
            """))
    }

    @Test func carsJSONIsTheBlogResponse() throws {
        let result = try run(["cars", "1", "--json"])
        #expect(result.status == 0)
        let json = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        let person = try #require(json?["d"] as? [String: Any])
        #expect(person["lastName"] as? String == "Samson")
        #expect((person["PersonCar"] as? [Any])?.count == 2)
    }

    @Test func maintenanceListsRecordsWithDescriptions() throws {
        let result = try run(["maintenance", "1"])
        #expect(result.status == 0)
        let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.first == "Ford Explorer, owned by Samson, Bob (PersonCar 1)")
        let header = try #require(lines.first { $0.hasPrefix("Date ") })
        #expect(header.contains("Mileage") && header.contains("Job") && header.contains("Cost"))
        // Rows start with a readable date, yyyy-MM-dd, followed by the column gap.
        let rows = lines.filter { $0.count > 12 && $0.prefix(4).allSatisfy(\.isNumber) && Array($0)[4] == "-" }
        #expect(!rows.isEmpty)
        for row in rows {
            #expect(row.prefix(10).allSatisfy { $0.isNumber || $0 == "-" }, "\(row)")
            #expect(column(of: "  ", in: row) == 10, "\(row)")
        }
        // The job's description comes from Maintenance; the Job column is aligned under its header.
        let jobColumn = try #require(column(of: "Job", in: header))
        #expect(rows.allSatisfy { row in Array(row)[jobColumn] != " " && Array(row)[jobColumn - 1] == " " })
        #expect(lines.contains { $0.hasPrefix("\(rows.count) record") && $0.contains("total cost") })
    }

    @Test func unknownPersonIsOneLineAndNonZero() throws {
        let result = try run(["cars", "4242"])
        #expect(result.status != 0)
        #expect(!result.crashed)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "no person with ID 4242\n")
    }

    @Test func unknownPersonCarIsOneLineAndNonZero() throws {
        let result = try run(["maintenance", "4242"])
        #expect(result.status != 0)
        #expect(result.stderr == "no PersonCar with ID 4242\n")
    }

    @Test func unreachableServerIsOneLineAndNonZero() throws {
        for command in [["people"], ["cars", "1"], ["maintenance", "1"], ["browse"]] {
            let result = try run(command, url: "http://127.0.0.1:1/CarDealer.svc/")
            #expect(result.status == 1, "\(command)")
            #expect(!result.crashed)
            #expect(result.stderr == "cannot reach http://127.0.0.1:1/CarDealer.svc/: connection refused\n", "\(command)")
        }
    }

    @Test func urlComesFromTheEnvironment() throws {
        let result = try ProcessRunner.run(dealer, ["cars", "1"], environment: ["DEALER_URL": gateway.root])
        #expect(result.status == 0)
        #expect(result.stdout.contains("Explorer"))
    }

    @Test func badArgumentsAreUsageErrors() throws {
        let result = try run(["cars", "bob"])
        #expect(result.status != 0)
        #expect(!result.crashed)
        #expect(result.stderr.contains("bob"))
    }
}
