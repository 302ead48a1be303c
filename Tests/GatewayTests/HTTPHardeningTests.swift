import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Request heads whose framing is ambiguous or malformed are refused with an OData error (and
/// the connection closed where what follows the head cannot be trusted); absolute URIs come from
/// `--public-url` or a well-formed Host only.
@Suite struct HTTPHardeningTests {
    let gateway: TestGateway
    init() throws { gateway = try TestGateway() }

    /// What the server sent back on one connection for `bytes`, and whether it closed it.
    struct Exchange {
        let received: [UInt8]
        let closed: Bool

        var text: String { String(decoding: received, as: UTF8.self) }
        /// How many responses the bytes hold (status lines at the start of a line).
        var responseCount: Int { text.components(separatedBy: "HTTP/1.1 ").count - 1 }
        func first() throws -> RawHTTPResponse { try RawHTTPClient.parse(received) }
    }

    /// Writes `bytes` and reads until the server closes the connection or is silent for
    /// `quiet` seconds.
    static func exchange(_ bytes: [UInt8], port: UInt16, quiet: Int = 2) throws -> Exchange {
        let fd = try RawHTTPClient.connect(port: port)
        defer { close(fd) }
        var timeout = timeval(tv_sec: quiet, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        try RawHTTPClient.writeAll(fd, bytes)
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n == 0 { return Exchange(received: received, closed: true) }
            if n < 0 { return Exchange(received: received, closed: false) }
            received.append(contentsOf: buffer[0..<n])
        }
    }

    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// The OData error of the first response, with its status and nosniff checked.
    static func expectODataError(_ exchange: Exchange, status: Int, containing fragment: String,
                                 sourceLocation: SourceLocation = #_sourceLocation) throws {
        let response = try exchange.first()
        #expect(response.status == status, "\(exchange.text.prefix(400))", sourceLocation: sourceLocation)
        #expect(try response.errorMessage().contains(fragment), "\(exchange.text.prefix(400))", sourceLocation: sourceLocation)
        #expect(response.header("Content-Type")?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect(response.header("X-Content-Type-Options") == "nosniff", sourceLocation: sourceLocation)
    }

    // MARK: Framing

    /// A chunked body with Content-Length too, followed by a second request: refused, the
    /// connection closed, and the second request never answered.
    @Test func contentLengthWithTransferEncodingIsRefusedAndNothingIsSmuggled() throws {
        let smuggled = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\n\r\n"
        let request = "POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            + "Content-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" + smuggled
        let exchange = try Self.exchange(Self.bytes(request), port: gateway.port)
        try Self.expectODataError(exchange, status: 400, containing: "both Content-Length and Transfer-Encoding")
        #expect(exchange.closed)
        #expect(exchange.responseCount == 1, "\(exchange.text)")
        #expect(!exchange.text.contains("Samson"))
        #expect(try exchange.first().header("Connection")?.lowercased() == "close")
    }

    @Test(arguments: [
        ("Transfer-Encoding: gzip", 501, "'gzip'"),
        ("Transfer-Encoding: chunked, identity", 501, "'identity'"),
        ("Transfer-Encoding: chunked\r\nTransfer-Encoding: gzip", 501, "'gzip'"),
        ("Transfer-Encoding: chunked, chunked", 400, "once, and last"),
        ("Transfer-Encoding: ", 501, "''"),
        ("Content-Length: 2\r\nContent-Length: 3", 400, "Content-Length only once"),
    ])
    func malformedFramingIsRefusedAndTheConnectionClosed(fields: String, status: Int, fragment: String) throws {
        let request = "POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n\(fields)\r\n\r\n{}"
        let exchange = try Self.exchange(Self.bytes(request), port: gateway.port)
        try Self.expectODataError(exchange, status: status, containing: fragment)
        #expect(exchange.closed, "no close after \(fields)")
        #expect(exchange.responseCount == 1)
    }

    /// `X-HTTP-Method: MERGE\0...` was obeyed as MERGE: libmicrohttpd cuts the value at the NUL.
    @Test(arguments: ["MERGE\u{0}", "MERGE\u{0}x", "MERGE\u{0}\u{0}"])
    func aNulInAHeaderValueIsRefused(value: String) throws {
        let before = try gateway.get("Person(1)")
        for last in [false, true] {
            let tunnel = "X-HTTP-Method: \(value)\r\n"
            let others = "Content-Type: application/json\r\nContent-Length: 21\r\n"
            let request = "POST /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                + (last ? others + tunnel : tunnel + others) + "\r\n{\"firstName\":\"Evil\"}"
            let exchange = try Self.exchange(Self.bytes(request), port: gateway.port)
            try Self.expectODataError(exchange, status: 400, containing: "NUL")
            #expect(exchange.closed)
        }
        #expect(try gateway.get("Person(1)").text == before.text, "the entity is unchanged")
    }

    /// A folded field (obs-fold) is refused too: libmicrohttpd moves its value, and RFC 9112
    /// lets a server refuse it.
    @Test func aFoldedHeaderFieldIsRefused() throws {
        let request = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json,\r\n text/plain\r\n\r\n"
        try Self.expectODataError(try Self.exchange(Self.bytes(request), port: gateway.port), status: 400, containing: "folded")
    }

    /// Ordinary heads, bare LF line ends included, still pass the checks, on a kept-alive
    /// connection too.
    @Test func wellFormedHeadsAreServed() throws {
        let crlf = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: application/json\r\nX-Empty:\r\nX-Spaces:   a b  \r\n\r\n"
        let lf = "GET /CarDealer.svc/Person(2) HTTP/1.1\nHost: 127.0.0.1\nAccept: application/json\nX-Empty:\n\n"
        let exchange = try Self.exchange(Self.bytes(crlf + lf + crlf), port: gateway.port, quiet: 1)
        #expect(exchange.responseCount == 3, "\(exchange.text)")
        #expect(exchange.text.components(separatedBy: "HTTP/1.1 200 OK").count - 1 == 3, "\(exchange.text)")
        #expect(!exchange.closed)
    }

    @Test func http11WithoutHostIsRefusedAndHttp10IsServed() throws {
        let withoutHost = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nAccept: application/json\r\n\r\n"
        try Self.expectODataError(try Self.exchange(Self.bytes(withoutHost), port: gateway.port), status: 400, containing: "Host")
        let twoHosts = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: a.example\r\nHost: b.example\r\n\r\n"
        try Self.expectODataError(try Self.exchange(Self.bytes(twoHosts), port: gateway.port), status: 400, containing: "Host only once")
        let http10 = "GET /CarDealer.svc/Person(1) HTTP/1.0\r\nAccept: application/json\r\n\r\n"
        let response = try Self.exchange(Self.bytes(http10), port: gateway.port).first()
        #expect(response.status == 200)
        #expect(response.text.contains("http://127.0.0.1:8080/CarDealer.svc/Person(1)"), "the fallback host")
    }

    /// Heads past the server's own limits get an OData 431, below libmicrohttpd's HTML one.
    @Test(arguments: [
        ("X-Big: " + String(repeating: "b", count: 11 * 1024) + "\r\n", "10240 bytes"),
        ((0..<80).map { "X-Field-\($0): v\r\n" }.joined(), "64 fields"),
    ])
    func aHeadPastTheLimitsGetsAnODataError(fields: String, fragment: String) throws {
        let request = "GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\n\(fields)\r\n"
        try Self.expectODataError(try Self.exchange(Self.bytes(request), port: gateway.port), status: 431, containing: fragment)
    }

    // MARK: Host and absolute URIs

    @Test(arguments: ["evil.example/x?y", "a b", "a.example:99999", "a.example:8o", "[::1", "[zz::1]", "a\"b", "a@b.example", "x%41.example"])
    func aMalformedHostIsRefused(host: String) throws {
        let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Host": host])
        #expect(response.status == 400, "\(host): \(response.text)")
        #expect(try response.errorMessage().contains("Host"))
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(!response.text.contains("\"uri\""))
    }

    @Test(arguments: ["a.example", "a.example:8080", "127.0.0.1:1", "[::1]:9000", "[2001:db8::1]", "my_host.example", "a.example:"])
    func aWellFormedHostIsUsed(host: String) throws {
        let response = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Host": host])
        #expect(response.status == 200, "\(host): \(response.text)")
        #expect(response.text.contains("http://\(host)/CarDealer.svc/Person(1)"))
    }

    /// With a public URL every absolute URI starts with it, whatever the Host; the root path
    /// served stays the same, and a batch operation may name the public URL.
    @Test func aPublicURLFixesEveryAbsoluteURI() throws {
        let publicURL = "https://dealer.example:8443/api/odata"
        let gateway = try TestGateway { configuration in
            configuration.publicURL = publicURL
            configuration.defaultPageSize = 2
        }
        for host in ["evil.example", "bad host/", "127.0.0.1"] {
            let entity = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/json", "Host": host])
            #expect(entity.status == 200, "\(entity.text)")
            let d = try #require(try entity.d() as? [String: Any])
            #expect((d["__metadata"] as? [String: Any])?["uri"] as? String == "\(publicURL)/Person(1)")
            #expect(((d["PersonCar"] as? [String: Any])?["__deferred"] as? [String: Any])?["uri"] as? String == "\(publicURL)/Person(1)/PersonCar")
        }
        let page = try gateway.request("GET", "Person", headers: ["Accept": "application/json", "Host": "evil.example"])
        let next = try #require((try page.d() as? [String: Any])?["__next"] as? String)
        #expect(next.hasPrefix("\(publicURL)/Person?"), "\(next)")
        let created = try gateway.request("POST", "Person", headers: ["Accept": "application/json", "Content-Type": "application/json",
                                                                      "Host": "evil.example"],
                                          body: Array(#"{"firstName":"Ada","lastName":"Lovelace","ssn":"1","createDate":"\/Date(1257008908440)\/"}"#.utf8))
        #expect(created.status == 201, "\(created.text)")
        #expect(created.header("Location")?.hasPrefix("\(publicURL)/Person(") == true, "\(created.header("Location") ?? "none")")
        let atom = try gateway.request("GET", "Person(1)", headers: ["Accept": "application/atom+xml", "Host": "evil.example"])
        #expect(atom.text.contains("xml:base=\"\(publicURL)/\""), "\(atom.text.prefix(400))")
        #expect(!atom.text.contains("evil.example"))

        let boundary = "batch_1"
        let batch = "--\(boundary)\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n"
            + "GET \(publicURL)/Person(2) HTTP/1.1\r\nAccept: application/json\r\n\r\n\r\n--\(boundary)--\r\n"
        let answer = try gateway.request("POST", "$batch", headers: ["Content-Type": "multipart/mixed; boundary=\(boundary)", "Host": "x.example"],
                                         body: Array(batch.utf8))
        #expect(answer.status == 202, "\(answer.text)")
        #expect(answer.text.contains("HTTP/1.1 200"), "\(answer.text)")
        #expect(answer.text.contains("\"uri\":\"\(publicURL)/Person(2)\""), "\(answer.text)")
    }

    // MARK: The real binary

    /// `--public-url` through the command line, and the access log's client address.
    @Test func theBinaryTakesAPublicURLAndLogsClientAddresses() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-hardening-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = folder.appendingPathComponent("stderr.log")
        try #require(FileManager.default.createFile(atPath: log.path, contents: nil))
        let logHandle = try FileHandle(forWritingTo: log)
        let process = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData",
                                                     "--db", folder.appendingPathComponent("db.sqlite").path, "--port", "0",
                                                     "--log-level", "debug", "--public-url", "https://dealer.example/CarDealer.svc"],
                                         standardError: logHandle)
        let response = try RawHTTPClient.send(port: process.port, target: "/CarDealer.svc/Person(7)",
                                              headers: ["Accept": "application/json", "Host": "attacker.example"])
        #expect(response.text.contains("\"uri\":\"https://dealer.example/CarDealer.svc/Person(7)\""), "\(response.text)")
        let refused = try Self.exchange(Self.bytes("GET /CarDealer.svc/Person(8) HTTP/1.1\r\n\r\n"), port: process.port)
        #expect(try refused.first().status == 400)
        #expect(process.stop() == 0)
        try logHandle.close()
        let text = try String(contentsOf: log, encoding: .utf8)
        let lines = text.split(separator: "\n")
        #expect(lines.contains { $0.range(of: #"127\.0\.0\.1:\d+ GET /CarDealer.svc/Person\(7\) 200 "#, options: .regularExpression) != nil }, "\(text)")
        #expect(lines.contains { $0.range(of: #"127\.0\.0\.1:\d+ GET /CarDealer.svc/Person\(8\) 400 "#, options: .regularExpression) != nil }, "\(text)")
    }

    @Test(arguments: ["ftp://dealer.example/x", "https:///x", "https://dealer.example/x/", "https://dealer.example/x?a=1", "dealer.example"])
    func aMalformedPublicURLIsRefusedAtStart(publicURL: String) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-public-url-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let arguments = ["serve", "--db", folder.appendingPathComponent("db.sqlite").path, "--port", "0", "--public-url"]
        // The same command with a well-formed URL serves: only the URL makes the difference.
        let served = try GatewayProcess(arguments: arguments + ["https://dealer.example/x"])
        #expect(served.stop() == 0)
        #expect(throws: (any Error).self) { _ = try GatewayProcess(arguments: arguments + [publicURL]) }
    }
}
