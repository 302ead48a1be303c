import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The gateway served the way an operator deploys it on a network: keys made with
/// `dealer-gateway keys`, `serve --access-file --tls-cert --tls-key` with a certificate made by
/// openssl for the test, read with curl and with pyodata over HTTPS.
@Suite(.serialized) struct SecureServingTests {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("secure-serving-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    func path(_ name: String) -> String { directory.appendingPathComponent(name).path }

    /// Runs a program to its end; its standard output, its standard error and its status.
    @discardableResult
    static func run(_ program: String, _ arguments: [String]) throws -> (output: String, error: String, status: Int32) {
        let process = Process()
        process.executableURL = program.hasPrefix("/") ? URL(fileURLWithPath: program) : URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = program.hasPrefix("/") ? arguments : [program] + arguments
        process.currentDirectoryURL = TestGateway.repositoryRoot
        let output = Pipe(), error = Pipe()
        process.standardOutput = output
        process.standardError = error
        try process.run()
        let errorText = Thread.detachNewThreadReading(error)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (text, errorText(), process.terminationStatus)
    }

    /// A CA and a certificate for 127.0.0.1 signed by it; the key readable by its owner alone.
    func makeCertificate() throws {
        let ext = path("server.ext")
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: ext, atomically: true, encoding: .utf8)
        for arguments in [["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=CarDealer test CA"],
                          ["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=127.0.0.1"],
                          ["x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                           "-out", path("server.pem"), "-days", "1", "-extfile", ext]] {
            let result = try Self.run("openssl", arguments)
            try #require(result.status == 0, "openssl \(arguments[0]): \(result.error)")
        }
    }

    /// `keys add`: the key, the last line of its output.
    func addKey(name: String, role: String) throws -> String {
        let result = try Self.run(GatewayProcess.executable.path, ["keys", "add", "--access-file", path("access.json"), "--name", name, "--role", role])
        try #require(result.status == 0, "\(result.error)")
        let key = try #require(result.output.split(separator: "\n").last.map(String.init))
        #expect(!(try String(contentsOfFile: path("access.json"), encoding: .utf8)).contains(key))
        return key
    }

    /// curl over HTTPS trusting only the test CA: status and body.
    func curl(_ port: UInt16, _ target: String, key: String?) throws -> (status: Int, body: String) {
        try curl("GET", port, target, key: key)
    }

    func curl(_ method: String, _ port: UInt16, _ target: String, key: String?, body: String? = nil) throws -> (status: Int, body: String) {
        var arguments = ["-s", "--cacert", path("ca.pem"), "-o", path("curl.out"), "-D", path("curl.headers"), "-w", "%{http_code}", "-X", method,
                         "-H", "Accept: application/json", "https://127.0.0.1:\(port)/CarDealer.svc/\(target)"]
        if let key { arguments += ["-H", "Authorization: Bearer \(key)"] }
        if let body { arguments += ["-H", "Content-Type: application/json", "--data", body] }
        let result = try Self.run("curl", arguments)
        let text = (try? String(contentsOfFile: path("curl.out"), encoding: .utf8)) ?? ""
        return (Int(result.output) ?? -1, text)
    }

    func serve(_ extra: [String] = []) throws -> GatewayProcess {
        try GatewayProcess(arguments: ["serve", "--port", "0", "--db", path("db.sqlite"), "--access-file", path("access.json"),
                                       "--tls-cert", path("server.pem"), "--tls-key", path("server.key")] + extra,
                           standardError: FileHandle(forWritingAtPath: path("log.txt"))!)
    }

    func prepare() throws -> (reader: String, editor: String) {
        try makeCertificate()
        try #"{"roles": {"reader": {"hide": ["Person.ssn"]}}, "keys": []}"#.write(toFile: path("access.json"), atomically: true, encoding: .utf8)
        try #require(FileManager.default.createFile(atPath: path("log.txt"), contents: nil))
        return (try addKey(name: "web", role: "reader"), try addKey(name: "office", role: "editor"))
    }

    @Test func anOperatorServesHTTPSWithAReaderAndAnEditorKey() throws {
        let (reader, editor) = try prepare()
        chmod(path("server.key"), 0o644)
        let gateway = try serve()
        defer { _ = gateway.stop() }
        let port = gateway.port

        #expect(try curl(port, "Person(1)", key: nil).status == 401)
        let challenges = try String(contentsOfFile: path("curl.headers"), encoding: .utf8).lowercased()
        #expect(challenges.contains("www-authenticate: basic") && challenges.contains("www-authenticate: bearer"), "\(challenges)")
        #expect(try curl(port, "Person(1)", key: "not-a-key").status == 401)
        let readByReader = try curl(port, "Person(1)", key: reader)
        #expect(readByReader.status == 200 && readByReader.body.contains("Bob"))
        #expect(!readByReader.body.contains("543872934") && !readByReader.body.contains("ssn"))
        // Links a client follows stay on the secure port.
        #expect(readByReader.body.contains(#""uri":"https://"#) && !readByReader.body.contains("http://"), "\(readByReader.body)")
        let car = #"{"make": "Saab", "model": "900", "createStamp": "/Date(0)/"}"#
        #expect(try curl("POST", port, "Car", key: reader, body: car).status == 403)
        #expect(try curl("POST", port, "Car", key: editor, body: car).status == 201)
        #expect(try curl(port, "Person(1)", key: editor).body.contains("543872934"))

        // Plain HTTP to the TLS port gets no data.
        let fd = try RawHTTPClient.connect(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try RawHTTPClient.writeAll(fd, Array("GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-Key: \(reader)\r\n\r\n".utf8))
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(fd, &buffer, buffer.count)
            if count <= 0 { break }
            received += buffer[..<count]
        }
        let plain = String(decoding: received, as: UTF8.self)
        #expect(!plain.contains("HTTP/1.") && !plain.contains("Bob"), "\(plain)")

        let log = try String(contentsOfFile: path("log.txt"), encoding: .utf8)
        #expect(log.contains("readable by other users"))
        #expect(log.contains("TLS"))
        // Writes are logged with the key's name, never the key.
        #expect(log.contains("office") && log.contains("POST"))
        #expect(!log.contains(reader) && !log.contains(editor))
    }

    @Test func aRevokedKeyIsRefusedOnceTheServerReloads() throws {
        let (reader, _) = try prepare()
        let gateway = try serve()
        defer { _ = gateway.stop() }
        #expect(try curl(gateway.port, "Car(1)", key: reader).status == 200)
        let list = try Self.run(GatewayProcess.executable.path, ["keys", "list", "--access-file", path("access.json")])
        #expect(list.output.contains("web\treader") && list.output.contains("office\teditor") && !list.output.contains(reader))
        #expect(try Self.run(GatewayProcess.executable.path, ["keys", "revoke", "--access-file", path("access.json"), "--name", "web"]).status == 0)
        kill(gateway.process.processIdentifier, SIGHUP)
        var status = 0
        for _ in 0..<50 {
            status = try curl(gateway.port, "Car(1)", key: reader).status
            if status == 401 { break }
            usleep(100_000)
        }
        #expect(status == 401)
    }

    @Test(.enabled(if: InteropTests.python != nil, "no interpreter with pyodata: run scripts/test, which sets one up"))
    func pyODataReadsOverHTTPSWithTheReadersKey() throws {
        let (reader, _) = try prepare()
        let gateway = try serve()
        defer { _ = gateway.stop() }
        let script = TestGateway.repositoryRoot.appendingPathComponent("Tests/Interop/pyodata_https.py").path
        let result = try Self.run(InteropTests.python!, [script, "https://127.0.0.1:\(gateway.port)/CarDealer.svc/", path("ca.pem"), reader, "Person", "1", "ssn"])
        #expect(result.status == 0, "\(result.output)\(result.error)")
        #expect(result.output.contains("pyodata https: passed") && result.output.contains("Bob"), "\(result.output)\(result.error)")
    }

    @Test func servingOpenSaysThatAnyoneCanWrite() throws {
        try #require(FileManager.default.createFile(atPath: path("log.txt"), contents: nil))
        let gateway = try GatewayProcess(arguments: ["serve", "--port", "0", "--db", path("db.sqlite"), "--allow-anonymous"],
                                         standardError: FileHandle(forWritingAtPath: path("log.txt"))!)
        #expect(try gateway.get("Car(1)").status == 200)
        _ = gateway.stop()
        #expect(try String(contentsOfFile: path("log.txt"), encoding: .utf8).contains("anyone who can connect may read and write everything"))
    }

    @Test func aNetworkAddressWithoutAnAccessFileIsRefused() throws {
        let result = try Self.run(GatewayProcess.executable.path, ["serve", "--host", "0.0.0.0", "--port", "0", "--db", path("db.sqlite")])
        #expect(result.status != 0)
        #expect(result.error.contains("--access-file") && result.error.contains("--allow-anonymous"), "\(result.error)")
    }
}

extension Thread {
    /// Reads a pipe to its end on another thread (a child that fills one pipe while the parent
    /// waits on the other would stall); the returned function waits for it.
    static func detachNewThreadReading(_ pipe: Pipe) -> () -> String {
        final class Reading: @unchecked Sendable {
            var text = ""
            let done = DispatchSemaphore(value: 0)
        }
        let reading = Reading()
        Thread.detachNewThread {
            reading.text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            reading.done.signal()
        }
        return {
            reading.done.wait()
            return reading.text
        }
    }
}
