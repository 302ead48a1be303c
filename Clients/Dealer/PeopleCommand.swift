import ArgumentParser
import Foundation

/// `dealer people`: everyone, or a search, a page at a time.
struct PeopleCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "people",
        abstract: "List people as 'lastName, firstName' with their IDs.")

    @OptionGroup var options: DealerOptions
    @OptionGroup var output: JSONOption

    @Option(help: "Only people whose last or first name contains this text (any case).")
    var search: String?

    @Option(help: "Show at most this many people.")
    var top: Int?

    @Option(help: "Skip this many people first.")
    var skip: Int?

    func validate() throws {
        if let top, top < 0 { throw ValidationError("--top must not be negative") }
        if let skip, skip < 0 { throw ValidationError("--skip must not be negative") }
    }

    func run() async throws {
        try await reportingFailures {
            let page = try await options.makeService().people(search: search, top: top, skip: skip)
            if output.json {
                FileHandle.standardOutput.write(page.raw)
                Terminal.print()
            } else {
                DealerViews.people(page).forEach { Terminal.print($0) }
            }
        }
    }
}
