import Foundation

/// Where things are: the repository, and the executables SwiftPM built for this test run.
enum TestPaths {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    static let carDealerSchema = repositoryRoot.appendingPathComponent("Schema/CarDealer.edmx")
    static let carDealerSeed = repositoryRoot.appendingPathComponent("SeedData")
    static let inventorySchema = repositoryRoot.appendingPathComponent("Tests/GatewayTests/Fixtures/Inventory.edmx")
    static let inventorySeed = repositoryRoot.appendingPathComponent("Tests/GatewayTests/Fixtures/InventorySeed")
    static let restConnectionSources = repositoryRoot.appendingPathComponent("Clients/RestConnection")

    /// A built product (`dealer`, `dealer-gateway`, `dealer-codegen`). SwiftPM puts products beside
    /// the test bundle, which is what the runner's first argument names; failing that, the newest
    /// build folder of the repository that has it.
    static func executable(_ name: String) throws -> URL {
        let fileManager = FileManager.default
        var directories: [URL] = []
        let runner = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var directory = runner.deletingLastPathComponent()
        // The runner may sit inside the bundle (Foo.xctest/Contents/MacOS/Foo); walk up to its folder.
        for _ in 0..<4 {
            directories.append(directory)
            directory = directory.deletingLastPathComponent()
        }
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        for candidate in directories {
            let url = candidate.appendingPathComponent(name)
            if fileManager.isExecutableFile(atPath: url.path) { return url }
        }
        // Fall back to .build*/debug (or release) under the repository, newest first.
        let builds = (try? fileManager.contentsOfDirectory(atPath: repositoryRoot.path)) ?? []
        var found: [(URL, Date)] = []
        for build in builds where build.hasPrefix(".build") {
            for configuration in ["debug", "release"] {
                let url = repositoryRoot.appendingPathComponent(build).appendingPathComponent(configuration).appendingPathComponent(name)
                if fileManager.isExecutableFile(atPath: url.path),
                   let modified = try? fileManager.attributesOfItem(atPath: url.path)[.modificationDate] as? Date {
                    found.append((url, modified))
                }
            }
        }
        if let newest = found.max(by: { $0.1 < $1.1 }) { return newest.0 }
        throw TestFailure("no built \(name) beside \(runner.path) or under \(repositoryRoot.path)/.build*")
    }

    /// A fresh temporary folder.
    static func temporaryDirectory(_ label: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("client-tests-\(label)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }
}

struct TestFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
