import Foundation
import Testing

/// The profile-guided release build (`scripts/build-release`) optimises what its training run
/// exercises, so the run checks itself: every kind of request it sends must have been answered
/// with success at least once (its deliberate errors with a 4xx), and none with a 5xx. Run here
/// against the built gateway, so that a change which breaks part of the training fails the tests
/// and not only the next release build.
@Suite struct TrainingWorkloadTests {
    @Test func theTrainingRunCoversTheServiceWithoutFailures() throws {
        let (status, report) = try Self.train(seed: "SeedData")
        #expect(status == 0, "\(report)")
        #expect(report.contains("training: "), "\(report)")
        #expect(!report.contains("POST declined"), "\(report)")
    }

    /// With no rows to build keyed reads, expansions and filters from, most kinds of request are
    /// never sent: the run must fail, not train on what little is left.
    @Test func aRunThatCannotCoverTheServiceFails() throws {
        let emptySeed = FileManager.default.temporaryDirectory.appendingPathComponent("training-seed-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: emptySeed, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: emptySeed) }
        let (status, report) = try Self.train(seed: emptySeed.path)
        #expect(status != 0, "\(report)")
        #expect(report.contains("never answered as expected: "), "\(report)")
        #expect(report.contains("keyed"), "\(report)")
    }

    /// Runs scripts/training-workload.py on the built gateway; its exit status and standard error.
    private static func train(seed: String) throws -> (Int32, String) {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("training-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: work) }
        let process = Process()
        let standardError = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "scripts/training-workload.py", GatewayProcess.executable.path,
                             "Schema/CarDealer.edmx", seed, work.path, "--seconds", "1.5", "--min-requests", "100"]
        process.currentDirectoryURL = TestGateway.repositoryRoot
        process.standardOutput = FileHandle.nullDevice
        process.standardError = standardError
        try process.run()
        let report = standardError.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: report, as: UTF8.self))
    }
}
