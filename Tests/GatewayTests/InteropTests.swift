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

    /// pyslet's client writes Atom: inserts (one through a navigation, bound to a car), PUT,
    /// MERGE, `$links` added and replaced, a delete.
    @Test(.enabled(if: python != nil, "no interpreter with pyslet: run scripts/test, which sets one up"))
    func pysletWritesAtomUnchanged() throws {
        let gateway = try TestGateway()
        try runClient([gateway.root], script: "pyslet_client.py", passed: "pyslet: all steps passed")
    }

    private func runClient(_ arguments: [String], script: String = "pyodata_client.py", passed: String = "pyodata: all steps passed") throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python!)
        process.arguments = [TestGateway.repositoryRoot.appendingPathComponent("Tests/Interop/" + script).path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 0, "\(text)")
        #expect(text.contains(passed), "\(text)")
    }
}
