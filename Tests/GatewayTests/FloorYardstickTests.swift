import Foundation
import Testing

/// The benchmark's C floor (`Benchmarks/floor/floor.c`) stands for what libmicrohttpd and SQLite
/// alone cost to answer `Person(n)`, `Person?$top=20` and the blog's `$expand`, and the gateway
/// is measured against it. That means something only while the floor does the gateway's work:
/// the same bytes, the same ETags, the same header fields. Built here with the toolchain's C compiler and run as a
/// process on the gateway's own database file, it is asked what the gateway is asked.
@Suite struct FloorYardstickTests {
    @Test func theFloorAnswersWithTheGatewaysBytes() throws {
        let gateway = try TestGateway()
        // What the seed data lacks: text that needs escaping, and text beyond ASCII. (It has people
        // without an ssn of its own.)
        let body = #"{"firstName":"Tab\there \"quoted\" back\\slash","lastName":"Line\nbreak\u0001 \u00fcn\u00efcode","#
            + #""ssn":null,"createDate":"\/Date(1257008908440)\/"}"#
        let created = try gateway.request("POST", "Person", headers: ["Accept": "application/json", "Content-Type": "application/json"],
                                          body: Array(body.utf8))
        #expect(created.status == 201, "\(created.text)")
        // It is the 61st person, and the gateway writes it with those escapes and that null, so
        // the comparison below covers them.
        let written = try gateway.get("Person(61)").text
        for fragment in [#"Tab\there \"quoted\" back\\slash"#, #"Line\nbreak\u0001 \#u{FC}n\#u{EF}code"#, #""ssn":null"#] {
            #expect(written.contains(fragment), "\(fragment) in \(written)")
        }

        let floor = try GatewayProcess(executable: try Self.buildFloor(in: gateway.directory),
                                       arguments: ["--db", gateway.databasePath, "--port", "0", "--threads", "2"])
        defer { _ = floor.stop() }
        // Both are asked under the gateway's own Host, which the URIs in the bodies repeat.
        let headers = ["Host": "127.0.0.1:\(gateway.port)", "Accept": "application/json"]
        // The seed data's people have one to three cars (some without a manufacture date); the
        // 61st, made above, has none.
        let targets = (1...61).map { "Person(\($0))" } + ["Person?$top=20", "Person?$top=1", "Person?$top=61"]
            + (1...61).map { "Person(\($0))?$expand=PersonCar,PersonCar/Car" }
        for target in targets {
            let expected = try RawHTTPClient.send(port: gateway.port, target: "/CarDealer.svc/" + target, headers: headers)
            let answered = try RawHTTPClient.send(port: floor.port, target: "/CarDealer.svc/" + target, headers: headers)
            #expect(expected.status == 200, "\(target): \(expected.text)")
            #expect(answered.status == expected.status, "\(target)")
            #expect(answered.text == expected.text, "\(target)")
            for name in ["Content-Type", "DataServiceVersion", "ETag", "Cache-Control", "X-Content-Type-Options", "Vary"] {
                #expect(answered.header(name) == expected.header(name), "\(name) of \(target)")
            }
        }
    }

    /// `floor.c` compiled into `folder`, with clang (which every Swift toolchain brings) or cc.
    private static func buildFloor(in folder: URL) throws -> URL {
        let source = TestGateway.repositoryRoot.appendingPathComponent("Benchmarks/floor/floor.c").path
        let binary = folder.appendingPathComponent("floor")
        let flags = try ChildProcess.output(of: "pkg-config", ["--cflags", "--libs", "libmicrohttpd", "sqlite3"])
            .split(whereSeparator: \.isWhitespace).map(String.init)
        let compiler = ["clang", "cc"].first { ChildProcess.executableInPath($0) != nil } ?? "cc"
        _ = try ChildProcess.output(of: compiler, ["-O2", "-Wall", "-Werror", "-o", binary.path, source] + flags)
        return binary
    }
}
