import Foundation
import Testing

/// A real browser, headless Chromium driven through its DevTools protocol by
/// `Tests/Browser/browser_check.py`: it loads the root, a set and an entity (a screenshot of
/// each), drills down by clicking links, submits a `$filter` and a bad one, and from a page of
/// another origin calls the service with fetch() GET and POST, which work with
/// `--allow-origin` and fail without it. `scripts/ensure-dependencies` installs Debian's
/// chromium; where there is none, the test is skipped and says so.
@Suite struct BrowserTests {
    static let chromium: String? = {
        if let path = ProcessInfo.processInfo.environment["CARDEALER_CHROMIUM"] { return path }
        return ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    @Test(.enabled(if: chromium != nil, "no chromium: scripts/ensure-dependencies installs Debian's (or set CARDEALER_CHROMIUM)"),
          .timeLimit(.minutes(3)))
    func aPersonBrowsesAndAnotherOriginCallsTheService() throws {
        let pages = try TestGateway { $0.defaultPageSize = 10 }
        let origin = "http://127.0.0.1:\(pages.port)"
        let allowing = try TestGateway { $0.allowedOrigins = [origin] }
        let refusing = try TestGateway()
        let screenshots = pages.directory.appendingPathComponent("screenshots")

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", TestGateway.repositoryRoot.appendingPathComponent("Tests/Browser/browser_check.py").path,
                             Self.chromium!, screenshots.path, pages.root, allowing.root, refusing.root]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("browser: all steps passed"), "\(text)")
        for name in ["root.png", "set.png", "entity.png"] {
            let size = (try? FileManager.default.attributesOfItem(atPath: screenshots.appendingPathComponent(name).path)[.size] as? Int) ?? 0
            #expect(size > 1000, "\(name) was taken")
        }
    }
}
