import Foundation
import Testing

/// Clients nobody here wrote, unchanged, against the real gateway. `scripts/test` provides their
/// interpreter (CARDEALER_INTEROP_PYTHON); run by hand without it, the test is skipped, and says so.
@Suite struct InteropTests {
    static let python: String? = {
        if let path = ProcessInfo.processInfo.environment["CARDEALER_INTEROP_PYTHON"] { return path }
        let local = TestGateway.repositoryRoot.appendingPathComponent(".build/interop/venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: local) ? local : nil
    }()

    @Test(.enabled(if: python != nil, "no interpreter with pyodata: run scripts/test, which sets one up"))
    func sapPyODataReadsAndWritesUnchanged() throws {
        let gateway = try TestGateway()
        try runClient([gateway.root])
    }

    @Test(.enabled(if: python != nil, "no interpreter with pyodata: run scripts/test, which sets one up"))
    func sapPyODataReadsEverySimpleTypeAndCompositeKeys() throws {
        let gateway = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                      seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        try runClient(["--inventory", gateway.root])
    }

    private func runClient(_ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = [TestGateway.repositoryRoot.appendingPathComponent("Tests/Interop/pyodata_client.py").path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains("pyodata: all steps passed"), "\(text)")
    }
}
