import Foundation

/// Runs a program to completion, as a user would from a shell: arguments, environment,
/// standard input, and what it printed on each stream.
struct ProcessResult {
    var status: Int32
    var stdout: String
    var stderr: String
    /// True if the process ended by a signal (a crash) rather than by exiting.
    var crashed: Bool
}

enum ProcessRunner {
    static func run(_ executable: URL, _ arguments: [String], stdin: String? = nil,
                    environment: [String: String] = [:], currentDirectory: URL? = nil,
                    timeout: TimeInterval = 120) throws -> ProcessResult {
        let directory = try TestPaths.temporaryDirectory("process")
        defer { try? FileManager.default.removeItem(at: directory) }
        // Files rather than pipes: a chatty child can never block on a full pipe.
        let outURL = directory.appendingPathComponent("stdout")
        let errURL = directory.appendingPathComponent("stderr")
        let inURL = directory.appendingPathComponent("stdin")
        _ = FileManager.default.createFile(atPath: outURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: inURL.path, contents: Data((stdin ?? "").utf8))

        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        var env = ProcessInfo.processInfo.environment
        for name in ["DEALER_URL", "DEALER_API_KEY", "COLUMNS"] { env.removeValue(forKey: name) }
        for (name, value) in environment { env[name] = value }
        process.environment = env
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let outHandle = try FileHandle(forWritingTo: outURL)
        let errHandle = try FileHandle(forWritingTo: errURL)
        let inHandle = try FileHandle(forReadingFrom: inURL)
        process.standardOutput = outHandle
        process.standardError = errHandle
        process.standardInput = inHandle
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                process.waitUntilExit()
                throw TestFailure("\(executable.lastPathComponent) \(arguments) did not finish within \(Int(timeout))s")
            }
            Thread.sleep(forTimeInterval: 0.02)
        }
        process.waitUntilExit()
        try? outHandle.close()
        try? errHandle.close()
        try? inHandle.close()
        return ProcessResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errURL), as: UTF8.self),
            crashed: process.terminationReason == .uncaughtSignal)
    }
}
