import Foundation
import RestConnection
import Testing
@testable import Dealer

/// A custom HTTPS trust against the real gateway serving TLS (`serve --tls-cert --tls-key`) with
/// certificates made by openssl at test time: a CA file or a pinned certificate is applied, on
/// Linux through libcurl, and nothing else is trusted with it. Reads, writes with If-Match, the
/// deadline and cancellation behave as over plain HTTP; `dealer` and `dealer-codegen` take `--ca-cert`.
@Suite(.serialized) final class RestConnectionCustomTrustTests {
    let directory: URL
    let gateway: GatewayProcess
    let editorKey: String

    init() throws {
        directory = try TestPaths.temporaryDirectory("custom-trust")
        try Self.makeCertificates(in: directory)
        let access = directory.appendingPathComponent("access.json")
        try #"{"roles": {}, "keys": []}"#.write(to: access, atomically: true, encoding: .utf8)
        let added = try ProcessRunner.run(try TestPaths.executable("dealer-gateway"), [
            "keys", "add", "--access-file", access.path, "--name", "office", "--role", "editor"])
        guard added.status == 0, let key = added.stdout.split(separator: "\n").last.map(String.init) else {
            throw TestFailure("keys add failed: \(added.stderr)")
        }
        editorKey = key
        let certificate = directory.appendingPathComponent("server.pem"), tlsKey = directory.appendingPathComponent("server.key")
        gateway = try GatewayProcess(extraArguments: ["--access-file", access.path, "--tls-cert", certificate.path, "--tls-key", tlsKey.path])
    }

    deinit {
        gateway.stop()
        try? FileManager.default.removeItem(at: directory)
    }

    func file(_ name: String) -> URL { directory.appendingPathComponent(name) }

    /// The test CA, a certificate for 127.0.0.1 signed by it (the server's), another one signed
    /// by it for the same address, and a second CA that signed nothing the server shows.
    static func makeCertificates(in directory: URL) throws {
        func path(_ name: String) -> String { directory.appendingPathComponent(name).path }
        try "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
            .write(toFile: path("server.ext"), atomically: true, encoding: .utf8)
        var steps: [[String]] = []
        for ca in ["ca", "other-ca"] {
            steps.append(["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", path("\(ca).key"), "-out", path("\(ca).pem"),
                          "-days", "2", "-subj", "/CN=CarDealer \(ca)"])
        }
        for leaf in ["server", "sibling"] {
            steps.append(["req", "-newkey", "rsa:2048", "-nodes", "-keyout", path("\(leaf).key"), "-out", path("\(leaf).csr"), "-subj", "/CN=127.0.0.1"])
            steps.append(["x509", "-req", "-in", path("\(leaf).csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"), "-CAcreateserial",
                          "-out", path("\(leaf).pem"), "-days", "1", "-extfile", path("server.ext")])
        }
        for name in ["ca", "server"] {
            steps.append(["x509", "-in", path("\(name).pem"), "-outform", "DER", "-out", path("\(name).der")])
        }
        for arguments in steps {
            let result = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), ["openssl"] + arguments, timeout: 60)
            guard result.status == 0 else { throw TestFailure("openssl \(arguments[0]): \(result.stderr)") }
        }
    }

    func connection(_ trust: ServerTrust, timeout: TimeInterval = 20, root: URL? = nil) -> RestConnection {
        RestConnection(baseURL: root ?? gateway.serviceRoot, credentials: .bearer(editorKey), trust: trust, timeout: timeout)
    }

    /// The call fails as untrusted: `.connectionFailed` naming the certificate.
    func expectUntrusted(_ trust: ServerTrust, sourceLocation: SourceLocation = #_sourceLocation) async {
        await #expect(sourceLocation: sourceLocation) {
            _ = try await connection(trust).get(Person.self, Person.uri(personID: 1))
        } throws: { error in
            guard case .connectionFailed(_, let reason, _)? = error as? RestConnectionError else { return false }
            return reason.contains("certificate")
        }
    }

    @Test func theCAThatSignedTheServerIsTrusted() async throws {
        let connection = connection(.certificateAuthority(file("ca.pem")))
        let person = try await connection.get(Person.self, Person.uri(personID: 1))
        #expect(person.personID == 1 && !person.firstName.isEmpty)
        // A body of many pieces arrives whole.
        let people = try await connection.getAll(Person.self, "Person")
        #expect(people.count == (try await connection.count("Person/$count")) && people.count > 10)
    }

    @Test func withoutTheCATheServerIsUntrusted() async {
        await expectUntrusted(.system)
    }

    @Test func aCAThatDidNotSignTheServerIsNotEnough() async {
        await expectUntrusted(.certificateAuthority(file("other-ca.pem")))
    }

    @Test func thePinnedServerCertificateIsTrusted() async throws {
        let person = try await connection(.pinnedCertificate(file("server.pem"))).get(Person.self, Person.uri(personID: 1))
        #expect(person.personID == 1)
        // DER files serve as well as PEM.
        #expect(try await connection(.pinnedCertificate(file("server.der"))).get(Person.self, Person.uri(personID: 1)).personID == 1)
        #expect(try await connection(.certificateAuthority(file("ca.der"))).get(Person.self, Person.uri(personID: 1)).personID == 1)
    }

    @Test func aPinToAnotherCertificateIsRefusedEvenFromTheSameCA() async {
        await expectUntrusted(.pinnedCertificate(file("sibling.pem")))
        await expectUntrusted(.pinnedCertificate(file("ca.pem")))
        await expectUntrusted(.pinnedCertificate(file("other-ca.pem")))
    }

    @Test func aTrustFileThatCannotBeReadFailsEveryRequest() async {
        await #expect {
            _ = try await connection(.certificateAuthority(file("missing.pem"))).get(Person.self, Person.uri(personID: 1))
        } throws: { error in
            guard case .invalidRequest(_, let reason)? = error as? RestConnectionError else { return false }
            return reason.contains("cannot be read")
        }
    }

    @Test(arguments: [ServerTrust.certificateAuthority(URL(fileURLWithPath: "ca.pem")), .pinnedCertificate(URL(fileURLWithPath: "server.pem"))])
    func writesCarryTheirBodyAndIfMatch(trust: ServerTrust) async throws {
        let resolved: ServerTrust
        switch trust {
        case .certificateAuthority(let name): resolved = .certificateAuthority(file(name.lastPathComponent))
        case .pinnedCertificate(let name): resolved = .pinnedCertificate(file(name.lastPathComponent))
        case .system: resolved = .system
        }
        let connection = connection(resolved)
        var person = try await connection.create(Person(firstName: "Ada", lastName: "Lovelace", ssn: "123-45-6789",
                                                        createDate: Date(timeIntervalSince1970: 0)))
        let firstETag = try #require(person.metadata?.etag)
        person.lastName = "King"
        try await connection.update(&person)
        #expect(person.metadata?.etag != firstETag)
        let read = try await connection.get(Person.self, person.uri)
        #expect(read.lastName == "King" && read.firstName == "Ada" && read.ssn == "123-45-6789")

        // A stale ETag is refused by the server: If-Match went with the MERGE.
        var stale = person
        stale.metadata?.etag = firstETag
        stale.firstName = "Augusta"
        await #expect(throws: RestConnectionError.self) { try await connection.update(&stale) }
        #expect(try await connection.get(Person.self, person.uri).firstName == "Ada")
        try await connection.delete(person)
    }

    @Test func theDeadlineHoldsThroughLibcurl() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let started = Date()
        await #expect {
            _ = try await connection(.certificateAuthority(file("ca.pem")), timeout: 1,
                                     root: URL(string: "https://127.0.0.1:\(listener.port)/")!).send(.get(""))
        } throws: { error in
            guard case .connectionFailed(_, _, let code)? = error as? RestConnectionError else { return false }
            return code == .timedOut
        }
        #expect(Date().timeIntervalSince(started) < 5)
    }

    @Test func cancellationHoldsThroughLibcurl() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let connection = connection(.pinnedCertificate(file("server.pem")), root: URL(string: "https://127.0.0.1:\(listener.port)/")!)
        let task = Task { try await connection.send(.get("")) }
        let limit = Date().addingTimeInterval(20)
        while !listener.hasWaitingClient, Date() < limit {
            try await Task.sleep(for: .milliseconds(20))
        }
        #expect(listener.hasWaitingClient, "the request never reached the server")
        try await Task.sleep(for: .milliseconds(100))
        let started = Date()
        task.cancel()
        let result = await task.result
        #expect(Date().timeIntervalSince(started) < 5)
        guard case .failure(let error) = result else {
            Issue.record("a cancelled request succeeded")
            return
        }
        #expect(error is CancellationError, "\(type(of: error)): \(error)")
        // The gateway is still read through the same kind of connection afterwards.
        #expect(try await self.connection(.pinnedCertificate(file("server.pem"))).get(Person.self, Person.uri(personID: 1)).personID == 1)
    }

    @Test func dealerReadsPeopleWithCACert() throws {
        let result = try ProcessRunner.run(try TestPaths.executable("dealer"), [
            "--ca-cert", file("ca.pem").path, "--api-key", editorKey, "people", "--url", gateway.root], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Bob"), "\(result.stdout)")
        let untrusted = try ProcessRunner.run(try TestPaths.executable("dealer"), [
            "--api-key", editorKey, "people", "--url", gateway.root], timeout: 60)
        #expect(untrusted.status != 0 && untrusted.stderr.contains("certificate"), "\(untrusted.stderr)")
    }

    @Test func codegenReadsMetadataWithCACert() throws {
        let output = file("Models.swift")
        let result = try ProcessRunner.run(try TestPaths.executable("dealer-codegen"), [
            "--url", gateway.root, "--ca-cert", file("ca.pem").path, "--api-key", editorKey, "--output", output.path], timeout: 60)
        #expect(result.status == 0, "\(result.stderr)")
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(text.contains("struct Person"), "\(result.stdout.prefix(300))")
    }
}
