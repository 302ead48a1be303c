import Foundation
import RestConnection
import Testing
@testable import Dealer

/// What `dealer` shows in a terminal when the data is hostile or awkward: escape sequences,
/// newlines, wide (CJK) characters and very long text, on a pseudo-terminal of a given width.
@Suite(.serialized) final class DealerTerminalTests {
    let gateway: GatewayProcess
    let dealer: URL
    let connection: RestConnection

    init() throws {
        gateway = try GatewayProcess()
        dealer = try TestPaths.executable("dealer")
        connection = RestConnection(baseURL: gateway.serviceRoot)
    }

    deinit {
        gateway.stop()
    }

    private func person(_ first: String, _ last: String) async throws -> Person {
        try await connection.create(Person(firstName: first, lastName: last, createDate: Date(timeIntervalSince1970: 0)))
    }

    @Test func controlCharactersAreShownNotObeyed() async throws {
        _ = try await person("Eve", "Red\u{1B}[31mAlert")
        _ = try await person("Two\nLines", "Newline")
        let result = try PseudoTerminal.run(dealer, ["people", "--search", "e", "--url", gateway.root], columns: 80)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("\u{1B}"), "no escape byte reaches the terminal")
        #expect(result.stdout.contains("Red␛[31mAlert, Eve"))
        #expect(result.stdout.contains("Newline, Two␤Lines"))
        // --json stays raw, for scripts.
        let json = try ProcessRunner.run(dealer, ["people", "--search", "alert", "--json", "--url", gateway.root])
        #expect(json.stdout.contains("\\u001b") || json.stdout.contains("\u{1B}"))
    }

    @Test func wideCharactersLineUpByDisplayColumns() async throws {
        let wide = try await person("太郎", "山田")
        let result = try PseudoTerminal.run(dealer, ["cars", String(wide.personID), "--url", gateway.root], columns: 80)
        #expect(result.stdout.hasPrefix("山田, 太郎 (person \(wide.personID))"))
        let table = try PseudoTerminal.run(dealer, ["people", "--search", "山", "--url", gateway.root], columns: 80)
        let lines = table.stdout.split(separator: "\n")
        #expect(lines.first == "ID  Name")
        #expect(lines.contains { $0.hasSuffix("  山田, 太郎") })
        #expect(TerminalText.width("山田, 太郎") == 10)
        var aligned = TextTable([("Name", .left), ("ID", .right)])
        aligned.add(["山田", "1"])
        aligned.add(["Li", "22"])
        #expect(aligned.render() == ["Name  ID", "山田   1", "Li    22"])
    }

    @Test func longCellsAreCutToTheTerminalWidth() async throws {
        let long = String(repeating: "Longname", count: 6)
        _ = try await person("Al", long)
        let result = try PseudoTerminal.run(dealer, ["people", "--search", "longname", "--url", gateway.root], columns: 30)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.allSatisfy { TerminalText.width(String($0)) <= 30 }, "\(lines)")
        #expect(lines.contains { $0.hasSuffix("…") })
        // Not a terminal, no COLUMNS: nothing is cut.
        let piped = try ProcessRunner.run(dealer, ["people", "--search", "longname", "--url", gateway.root])
        #expect(piped.stdout.contains("\(long), Al"))
        // COLUMNS wins over the terminal's size.
        let narrow = try ProcessRunner.run(dealer, ["people", "--search", "longname", "--url", gateway.root], environment: ["COLUMNS": "20"])
        #expect(narrow.stdout.split(separator: "\n").allSatisfy { TerminalText.width(String($0)) <= 20 })
    }

    @Test func arrowKeysDoNotReachTheBrowser() throws {
        #expect(Terminal.withoutEscapeSequences("\u{1B}[A1") == "1")
        #expect(Terminal.withoutEscapeSequences("n\u{1B}OB") == "n")
        let result = try ProcessRunner.run(dealer, ["browse", "--url", gateway.root], stdin: "\u{1B}[A\u{1B}[B1\nq\n")
        #expect(result.stdout.contains("Samson, Bob (person 1)"))
    }

    /// At a terminal the keys are read raw: the Up arrow neither shows as `^[[A` nor garbles the
    /// line, and recalls the line typed before it, which runs again with Enter.
    @Test func upArrowAtATerminalRecallsTheLastLine() throws {
        let up = "\u{1B}[A"
        let result = try PseudoTerminal.run(dealer, ["browse", "--url", gateway.root], columns: 100,
                                            typing: [up + "1\r", "b\r", up + up + "\u{7F}1\r", "q\r"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(!result.stdout.contains("^["), "\(result.stdout)")
        #expect(!result.stdout.contains("\u{1B}"), "no escape byte is echoed")
        #expect(result.stdout.components(separatedBy: "Samson, Bob (person 1)").count == 3,
                "person 1's cars twice, by typing and by recalling: \(result.stdout)")
        #expect(!result.stdout.contains("Not understood"), "\(result.stdout)")
    }

    /// Killed while waiting at the prompt, browse puts the terminal back first (else the shell is
    /// left raw: no echo, Enter ignored) and still ends by the signal.
    @Test(arguments: [("SIGTERM", 15), ("SIGHUP", 1)])
    func aSignalAtThePromptRestoresTheTerminal(signal: String, number: Int) throws {
        let outcome = try PseudoTerminal.signalAtPrompt(dealer, ["browse", "--url", gateway.root], signal: signal)
        #expect(outcome.prompted && outcome.rawWhileWaiting, "\(outcome)")
        #expect(outcome.restored, "the terminal is left as browse set it: \(outcome)")
        #expect(outcome.status == -number, "\(outcome)")
    }
}
