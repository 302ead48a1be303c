import Foundation
import RestConnection

/// A real `dealer-gateway serve` process on an ephemeral loopback port, with its own fresh
/// SQLite file seeded from the repository's seed data. Stopped (SIGTERM) by `stop()` or when released.
final class GatewayProcess: @unchecked Sendable {
    let serviceRoot: URL
    private let process: Process
    private let directory: URL

    /// Starts the gateway and waits for its "Serving http://..." line.
    init(schema: URL = TestPaths.carDealerSchema, seed: URL = TestPaths.carDealerSeed, extraArguments: [String] = []) throws {
        directory = try TestPaths.temporaryDirectory("gateway")
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        process = Process()
        process.executableURL = try TestPaths.executable("dealer-gateway")
        process.arguments = ["serve", "--schema", schema.path, "--seed", seed.path,
                             "--db", directory.appendingPathComponent("gateway.sqlite").path, "--port", "0"] + extraArguments
        process.standardOutput = try FileHandle(forWritingTo: outURL)
        process.standardError = try FileHandle(forWritingTo: errURL)
        process.standardInput = FileHandle.nullDevice
        try process.run()

        let deadline = Date().addingTimeInterval(60)
        var root: URL?
        while root == nil {
            let output = String(decoding: (try? Data(contentsOf: outURL)) ?? Data(), as: UTF8.self)
            if let line = output.split(separator: "\n").first(where: { $0.hasPrefix("Serving ") }) {
                root = URL(string: String(line.dropFirst("Serving ".count)).trimmingCharacters(in: .whitespaces))
                break
            }
            if !process.isRunning || Date() > deadline {
                let errors = String(decoding: (try? Data(contentsOf: errURL)) ?? Data(), as: UTF8.self)
                if process.isRunning { process.terminate() }
                throw TestFailure("dealer-gateway did not start: \(output) \(errors)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
        serviceRoot = root!
    }

    /// The service root as text, ending in `/`.
    var root: String { serviceRoot.absoluteString }

    /// How many people the seeded database holds, asked of the gateway itself.
    func peopleCount() async throws -> Int {
        try await RestConnection(baseURL: serviceRoot).count("Person/$count")
    }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
