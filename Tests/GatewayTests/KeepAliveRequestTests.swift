import Foundation
import HTTPCore
import ODataHTTP
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The server keeps one request state per connection and reuses it for each request on that
/// connection, keeping the previous request's header fields and target where the next request's
/// are the same. Whatever the previous requests were, the handler must see exactly the request
/// that was sent: its method, target, fields in order (names lower-cased), the fields found by
/// `KnownHeader`, and its body.
@Suite(.timeLimit(.minutes(1))) struct KeepAliveRequestTests {
    /// One request as the test sends it.
    struct Sent {
        var method = "GET"
        var target: String
        var fields: [(String, String)]
        var body: [UInt8] = []
    }

    /// What the handler saw, written as text, one item per line.
    static func describe(_ request: HTTPRequest) -> String {
        var lines = ["\(request.method) \(request.target)"]
        for field in request.headerFields { lines.append("field \(field.name): \(field.value)") }
        for known in KnownHeader.allCases { lines.append("known \(known.name) = \(request.header(known) ?? "-")") }
        lines.append("body \(request.body.count) \(String(decoding: request.body, as: UTF8.self))")
        return lines.joined(separator: "\n")
    }

    /// What the handler should see for `sent`.
    static func expected(_ sent: Sent) -> String {
        let fields = sent.fields.map { (name: $0.0.lowercased(), value: $0.1) }
        var lines = ["\(sent.method) \(sent.target)"]
        for field in fields { lines.append("field \(field.name): \(field.value)") }
        for known in KnownHeader.allCases {
            lines.append("known \(known.name) = \(fields.first { $0.name == known.name }?.value ?? "-")")
        }
        lines.append("body \(sent.body.count) \(String(decoding: sent.body, as: UTF8.self))")
        return lines.joined(separator: "\n")
    }

    private func startEchoServer() throws -> (HTTPServer, UInt16) {
        var configuration = HTTPServer.Configuration()
        configuration.headerIndex = ODataService.headerIndex
        configuration.port = 0
        configuration.threads = 1
        let server = HTTPServer(configuration: configuration) { request in
            HTTPResponse(status: 200, headers: [("Content-Type", "text/plain")], body: Array(Self.describe(request).utf8))
        }
        return (server, try server.start())
    }

    /// Sends each request in turn on one keep-alive connection and checks what the handler saw.
    private func check(_ requests: [Sent], port: UInt16, note: String = "") throws {
        let fd = try RawHTTPClient.connect(port: port)
        defer { close(fd) }
        for (index, sent) in requests.enumerated() {
            var fields = sent.fields
            if !sent.body.isEmpty { fields.append(("Content-Length", String(sent.body.count))) }
            let response = try RawHTTPClient.exchangeKeepingAlive(fd, method: sent.method, target: sent.target, fields: fields, body: sent.body)
            let shown = fields.map { "\($0.0): \($0.1)" }.joined(separator: " | ")
            let label = "\(note) request \(index): \(sent.method) \(sent.target) [\(shown)]"
            #expect(response.status == 200, "\(label)")
            #expect(response.text == Self.expected(Sent(method: sent.method, target: sent.target, fields: fields, body: sent.body)),
                    "\(label)")
        }
    }

    @Test func fieldsThatChangeBetweenRequestsOnOneConnectionAreSeenAsSent() throws {
        let (server, port) = try startEchoServer()
        defer { server.stop() }
        let host = ("Host", "a.example")
        try check([
            Sent(target: "/Person(1)", fields: [host, ("Accept", "application/json"), ("If-None-Match", "W/\"1111\"")]),
            // The same fields again, then a value of the same length, then another case of a name.
            Sent(target: "/Person(1)", fields: [host, ("Accept", "application/json"), ("If-None-Match", "W/\"1111\"")]),
            Sent(target: "/Person(2)", fields: [host, ("Accept", "application/json"), ("If-None-Match", "W/\"2222\"")]),
            Sent(target: "/Person(2)", fields: [("HOST", "a.example"), ("accept", "application/json"), ("If-None-Match", "W/\"2222\"")]),
            // Fewer fields: the last one, which the previous request had, is gone.
            Sent(target: "/Person(10)", fields: [host, ("Accept", "application/json")]),
            // More fields, one of them known, and a field moved to another place.
            Sent(target: "/Person(10)", fields: [("Accept", "application/json"), host, ("If-Match", "*"), ("X-Extra", "1")]),
            // A known header's place taken by another field with a value of the same length.
            Sent(target: "/Person(10)", fields: [("Accept", "application/json"), host, ("X-Other", "*"), ("X-Extra", "1")]),
            // A body, then none.
            Sent(method: "POST", target: "/Person", fields: [host, ("Content-Type", "application/json")], body: Array("{\"a\":1}".utf8)),
            Sent(target: "/Person", fields: [host, ("Content-Type", "application/json")]),
            // The same bytes, split between name and value elsewhere.
            Sent(target: "/", fields: [host, ("X-Ab", "cd")]),
            Sent(target: "/", fields: [host, ("X-A", "bcd")]),
            Sent(target: "/", fields: [host, ("X-Abc", "d")]),
            // Only Host.
            Sent(target: "/", fields: [("Host", "b.example")]),
        ], port: port)
    }

    @Test func randomRequestsOnOneConnectionAreSeenAsSent() throws {
        let (server, port) = try startEchoServer()
        defer { server.stop() }
        var random = SystemRandomNumberGenerator()
        let seed = UInt64.random(in: 1...UInt64.max, using: &random)
        var generator = SeededRandom(seed: seed)
        // Names in several spellings, values of equal lengths: a field that differs from the one
        // before it at its place only in a byte of its value, or in the case of its name.
        // Host is not among them: a second Host field is refused (RFC 9112 section 3.2).
        let names = ["Accept", "accept", "ACCEPT", "If-Match", "If-None-Match", "DataServiceVersion",
                     "MaxDataServiceVersion", "X-HTTP-Method", "Origin", "X-Custom", "x-custom"]
        let values = ["application/json", "application/xml!", "1.0", "2.0", "*", "W/\"abcd\"", "W/\"abce\"", "a.example", "b.example"]
        let targets = ["/Person(1)", "/Person(2)", "/Person(12)", "/Car?$top=2", "/Car?$top=3", "/"]
        var requests: [Sent] = []
        for _ in 0..<300 {
            var fields: [(String, String)] = []
            for _ in 0..<Int(generator.next() % 7) {
                fields.append((names[Int(generator.next() % UInt64(names.count))], values[Int(generator.next() % UInt64(values.count))]))
            }
            // HTTP/1.1 requires Host; it goes anywhere among the others.
            fields.insert(("Host", generator.next() % 2 == 0 ? "a.example" : "b.example"), at: Int(generator.next() % UInt64(fields.count + 1)))
            let withBody = generator.next() % 5 == 0
            let body = withBody ? Array(String(repeating: "x", count: Int(generator.next() % 40) + 1).utf8) : []
            requests.append(Sent(method: withBody ? "POST" : "GET", target: targets[Int(generator.next() % UInt64(targets.count))],
                                 fields: fields, body: body))
        }
        try check(requests, port: port, note: "seed \(seed)")
    }
}
