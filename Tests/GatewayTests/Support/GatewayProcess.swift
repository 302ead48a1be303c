import Foundation

/// The built `dealer-gateway` executable, run as a child process the way a user runs it; or
/// another server that announces itself the same way (the benchmark's C yardsticks).
final class GatewayProcess {
    static var executable: URL {
        // Test bundles and products sit side by side in the build folder.
        let products = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        let candidates = [products, products.deletingLastPathComponent()]
        for folder in candidates {
            let url = folder.appendingPathComponent("dealer-gateway")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return TestGateway.repositoryRoot.appendingPathComponent(".build/debug/dealer-gateway")
    }

    let process = Process()
    let output = Pipe()
    private(set) var port: UInt16 = 0

    /// - Parameter standardError: where its log goes (it logs to standard error).
    init(executable: URL = GatewayProcess.executable, arguments: [String], standardError: FileHandle = .nullDevice) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = TestGateway.repositoryRoot
        process.standardOutput = output
        process.standardError = standardError
        try process.run()
        // The first line on stdout says where it listens.
        var line: [UInt8] = []
        let handle = output.fileHandleForReading
        while true {
            let byte = handle.readData(ofLength: 1)
            guard let first = byte.first else { throw TestFailure("\(executable.lastPathComponent) exited before listening") }
            if first == UInt8(ascii: "\n") { break }
            line.append(first)
        }
        let text = String(decoding: line, as: UTF8.self)
        let prefix = text.hasPrefix("Serving https://") ? "Serving https://127.0.0.1:" : "Serving http://127.0.0.1:"
        guard text.hasPrefix(prefix), let port = UInt16(text.dropFirst(prefix.count).prefix { $0.isNumber }) else {
            throw TestFailure("unexpected first line: \(text)")
        }
        self.port = port
    }

    func get(_ target: String) throws -> RawHTTPResponse {
        try RawHTTPClient.send(port: port, target: "/CarDealer.svc/" + target, headers: ["Accept": "application/json"])
    }

    /// Sends `signal` and waits for the process to end; returns its exit status.
    func stop(signal: Int32 = SIGTERM, timeout: TimeInterval = 10) -> Int32? {
        kill(process.processIdentifier, signal)
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        return process.isRunning ? nil : process.terminationStatus
    }

    deinit {
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    }
}
