import Foundation

/// Programs the tests run to the end and read, found in PATH as a shell would.
enum ChildProcess {
    static func executableInPath(_ name: String) -> URL? {
        (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":")
            .map { URL(fileURLWithPath: String($0)).appendingPathComponent(name) }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// The standard output of `command`, which must succeed. (It reads standard output to the
    /// end before standard error, so a program must not write more than a pipe holds there.)
    static func output(of command: String, _ arguments: [String]) throws -> String {
        guard let executable = executableInPath(command) else { throw TestFailure("\(command) is not in PATH") }
        let process = Process()
        let standardOutput = Pipe()
        let standardError = Pipe()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = TestGateway.repositoryRoot
        process.standardOutput = standardOutput
        process.standardError = standardError
        try process.run()
        let printed = standardOutput.fileHandleForReading.readDataToEndOfFile()
        let complaints = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw TestFailure("\(command) \(arguments.joined(separator: " ")) failed: \(String(decoding: complaints, as: UTF8.self))")
        }
        return String(decoding: printed, as: UTF8.self)
    }
}
