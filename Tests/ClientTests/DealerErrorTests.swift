import Foundation
import RestConnection
import Testing

/// `dealer`'s errors say what happened, its deadline holds, and browse survives a failure.
/// Also the command line's shape: options before the command, `--version`, browse's help.
@Suite(.serialized) final class DealerErrorTests {
    let gateway: GatewayProcess
    let dealer: URL

    init() throws {
        gateway = try GatewayProcess()
        dealer = try TestPaths.executable("dealer")
    }

    deinit {
        gateway.stop()
    }

    @Test func wrongServiceRootIsNotAMissingPerson() throws {
        let wrong = gateway.root.replacingOccurrences(of: "CarDealer.svc/", with: "Wrong.svc/")
        let result = try ProcessRunner.run(dealer, ["cars", "1", "--url", wrong])
        #expect(result.status == 1)
        #expect(!result.stderr.contains("no person"), "\(result.stderr)")
        #expect(result.stderr.contains("404") && result.stderr.contains("no service"), "\(result.stderr)")
        // A missing key under the right root is still said plainly.
        let missing = try ProcessRunner.run(dealer, ["cars", "4242", "--url", gateway.root])
        #expect(missing.stderr == "no person with ID 4242\n")
    }

    @Test func invalidURLSaysSo() throws {
        for url in ["http://127.0.0.1:99999/", "ftp://127.0.0.1/", "not a url"] {
            let result = try ProcessRunner.run(dealer, ["people", "--url", url])
            #expect(result.status == 64, "\(url)")
            #expect(result.stderr.contains("invalid URL"), "\(url): \(result.stderr)")
            #expect(!result.stderr.contains("NSURLErrorDomain"))
        }
    }

    @Test func timeoutIsADeadlineForTheWholeRequest() throws {
        let dribbling = try RecordingServer(byteInterval: 1)
        defer { dribbling.close() }
        let started = Date()
        let result = try ProcessRunner.run(dealer, ["people", "--url", dribbling.root, "--timeout", "2"], timeout: 60)
        let elapsed = Date().timeIntervalSince(started)
        #expect(result.status == 1)
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(elapsed < 10, "a byte a second must not keep dealer past its 2 s deadline (took \(elapsed) s)")
    }

    @Test func browseShowsAFailureAndStays() async throws {
        // The gateway stops in the middle: the next request fails, the error is shown, q still works.
        let stoppable = try GatewayProcess()
        let process = Process()
        process.executableURL = dealer
        process.arguments = ["browse", "--url", stoppable.root]
        let input = Pipe(), output = Pipe(), errors = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        try await Task.sleep(for: .seconds(2))
        stoppable.stop()
        input.fileHandleForWriting.write(Data("1\nq\n".utf8))
        try input.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(30)
        while process.isRunning, Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        if process.isRunning { process.terminate() }
        let shown = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        let errorText = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(process.terminationStatus == 0, "\(errorText)")
        #expect(errorText.contains("cannot reach"), "\(errorText)")
        #expect(shown.components(separatedBy: "> ").count >= 3, "prompted again after the failure")
    }

    @Test func browseUnderstandsAnIDWhereARowIsExpected() throws {
        // On the second page (rows 1-5 are people 6-10), 7 is no row number, so it is the ID shown.
        let result = try ProcessRunner.run(dealer, ["browse", "--page-size", "5", "--url", gateway.root], stdin: "n\n7\nq\n")
        #expect(result.stdout.contains("(person 7)"), "\(result.stdout)")
        #expect(result.stdout.contains("1-5 (the # column) or an ID: pick a person"))
    }

    @Test func optionsBeforeTheCommandAndVersion() throws {
        let before = try ProcessRunner.run(dealer, ["--url", gateway.root, "cars", "1"])
        #expect(before.status == 0, "\(before.stderr)")
        #expect(before.stdout.contains("Explorer"))
        let equals = try ProcessRunner.run(dealer, ["--url=\(gateway.root)", "--timeout", "5", "people", "--top", "1"])
        #expect(equals.stdout.contains("Samson, Bob"), "\(equals.stderr)")
        let version = try ProcessRunner.run(dealer, ["--version"])
        #expect(version.status == 0)
        #expect(version.stdout.split(separator: ".").count == 3, "\(version.stdout)")
    }

    @Test func browseHelpHasNoJSON() throws {
        let help = try ProcessRunner.run(dealer, ["browse", "--help"])
        #expect(!help.stdout.contains("--json"))
        #expect(help.stdout.contains("--api-key"))
        let peopleHelp = try ProcessRunner.run(dealer, ["people", "--help"])
        #expect(peopleHelp.stdout.contains("--json"))
    }
}
