import Foundation
import RestConnection
import Testing
@testable import Dealer

/// The clients' side of API keys and HTTPS: credentials on every request (checked by what a
/// recording server receives), 401 and 403 as typed errors that name the problem, and server
/// trust against a real TLS server (`openssl s_server`) with a certificate made at test time.
@Suite(.serialized) final class RestConnectionSecurityTests {
    static let person = #"{"d":{"__metadata":{"uri":"x","type":"edmexampleModel.Person"},"personID":1,"firstName":"Bob","lastName":"Samson","ssn":null,"createDate":"\/Date(0)\/"}}"#

    @Test(arguments: [
        (Credentials.bearer("k-123"), "Authorization", "Bearer k-123"),
        (Credentials.apiKey("k-123"), "X-API-Key", "k-123"),
        (Credentials.basic(user: "reader", password: "k-123"), "Authorization", "Basic " + Data("reader:k-123".utf8).base64EncodedString()),
    ])
    func credentialsGoWithEveryRequest(credentials: Credentials, header: String, value: String) async throws {
        let server = try RecordingServer(body: RestConnectionSecurityTests.person)
        defer { server.close() }
        let connection = RestConnection(baseURL: URL(string: server.root)!, credentials: credentials)
        _ = try await connection.get("Person(1)")
        _ = try await connection.get(Person.self, Person.uri(personID: 1))
        _ = try? await connection.getAll(Person.self, "Person")
        _ = try? await connection.create(Person(firstName: "A", lastName: "B", createDate: .now))
        var person = try await connection.get(Person.self, "Person(1)?x=1")
        _ = try? await connection.update(&person)
        #expect(server.requests.count == 6)
        for index in server.requests.indices {
            #expect(server.header(header, request: index) == value, "request \(index): \(server.requests[index])")
        }
    }

    @Test func unauthorizedAndForbiddenNameTheProblem() async throws {
        let error = #"{"error":{"code":"","message":{"lang":"en-US","value":"A valid API key is required."}}}"#
        let unauthorized = try RecordingServer(status: "401 Unauthorized", headers: ["WWW-Authenticate": "Bearer"], body: error)
        defer { unauthorized.close() }
        await #expect {
            _ = try await RestConnection(baseURL: URL(string: unauthorized.root)!).get(Person.self, "Person(1)")
        } throws: { error in
            guard case .accessDenied(_, 401, let odata, false)? = error as? RestConnectionError else { return false }
            return odata?.message == "A valid API key is required." && "\(error)".contains("none were sent")
        }
        await #expect {
            _ = try await RestConnection(baseURL: URL(string: unauthorized.root)!, credentials: .bearer("wrong")).get("Person")
        } throws: { error in
            guard case .accessDenied(_, 401, _, true)? = error as? RestConnectionError else { return false }
            return "\(error)".contains("refused")
        }
        let forbidden = try RecordingServer(status: "403 Forbidden", body: error)
        defer { forbidden.close() }
        await #expect {
            _ = try await RestConnection(baseURL: URL(string: forbidden.root)!, credentials: .apiKey("reader")).delete("Person(1)")
        } throws: { error in
            guard case .accessDenied(_, 403, _, true)? = error as? RestConnectionError else { return false }
            return "\(error)".contains("do not give the right")
        }
    }

    @Test func dealerSendsItsKey() throws {
        let server = try RecordingServer()
        defer { server.close() }
        let dealer = try TestPaths.executable("dealer")
        _ = try ProcessRunner.run(dealer, ["--api-key", "from-option", "people", "--url", server.root])
        _ = try ProcessRunner.run(dealer, ["people", "--url", server.root], environment: ["DEALER_API_KEY": "from-environment"])
        #expect(server.header("Authorization", request: 0) == "Bearer from-option")
        #expect(server.header("Authorization", request: 1) == "Bearer from-environment")

        let codegen = try TestPaths.executable("dealer-codegen")
        _ = try ProcessRunner.run(codegen, ["--url", server.root, "--api-key", "codegen-key"])
        #expect(server.header("Authorization", request: 2) == "Bearer codegen-key")
        #expect(server.requests.count == 3 && server.requests[2].hasPrefix("GET /CarDealer.svc/$metadata "))
    }

    @Test func codegenHasADeadlineToo() throws {
        let dribbling = try RecordingServer(byteInterval: 1)
        defer { dribbling.close() }
        let started = Date()
        let result = try ProcessRunner.run(try TestPaths.executable("dealer-codegen"), ["--url", dribbling.root, "--timeout", "2"], timeout: 60)
        #expect(result.status == 1)
        #expect(result.stderr.contains("timed out"), "\(result.stderr)")
        #expect(Date().timeIntervalSince(started) < 10)
    }

    @Test func dealerSaysWhatA401Means() throws {
        let server = try RecordingServer(status: "401 Unauthorized", headers: ["WWW-Authenticate": "Bearer"], body: "")
        defer { server.close() }
        let result = try ProcessRunner.run(try TestPaths.executable("dealer"), ["people", "--url", server.root])
        #expect(result.status == 1)
        #expect(result.stderr.contains("401") && result.stderr.contains("none were sent"), "\(result.stderr)")
    }

    @Test func untrustedCertificateIsRefusedAndSaysSo() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        // The server is sound: trusted through its own certificate, openssl's own client
        // verifies it, so the refusal below is the trust's doing.
        let verified = try ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/env"), [
            "openssl", "s_client", "-connect", "127.0.0.1:\(server.port)", "-CAfile", server.certificate.path,
            "-verify_return_error", "-verify_ip", "127.0.0.1",
        ], stdin: "", timeout: 30)
        #expect(verified.status == 0 && verified.stdout.contains("Verify return code: 0 (ok)"), "\(verified.stderr)")

        await #expect {
            _ = try await RestConnection(baseURL: URL(string: server.root)!).send(.get(""))
        } throws: { error in
            guard case .connectionFailed(_, let reason, _)? = error as? RestConnectionError else { return false }
            return reason.contains("certificate")
        }
    }

    @Test func customTrustIsApplied() async throws {
        let server = try TLSServer()
        defer { server.stop() }
        for trust in [ServerTrust.certificateAuthority(server.certificate), .pinnedCertificate(server.certificate)] {
            let connection = RestConnection(baseURL: URL(string: server.root)!, trust: trust, timeout: 10)
            let response = try await connection.send(RestRequest(path: "", headers: ["Accept": "*/*"]))
            #expect(response.statusCode == 200)
        }
    }
}
