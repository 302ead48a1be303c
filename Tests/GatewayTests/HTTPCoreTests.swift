import Foundation
@testable import HTTPCore
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// HTTPCore serves any handler: nothing in it is OData. What the server could not read as it
/// reads any request reaches the handler as a `TransportCondition`, with the request's own method.
@Suite(.timeLimit(.minutes(1))) struct HTTPCoreTests {
    /// A server whose handler says hello, or names the condition it was handed.
    private func startPlainServer(configure: (inout HTTPServer.Configuration) -> Void = { _ in }) throws -> (HTTPServer, UInt16) {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 1
        configure(&configuration)
        let server = HTTPServer(configuration: configuration) { request in
            guard let condition = request.transportCondition else {
                return HTTPResponse(status: 200, contentType: "text/plain", body: Array("hello \(request.method) \(request.body.count)".utf8))
            }
            return HTTPResponse(status: condition.status, contentType: "text/plain",
                                body: Array("\(request.method) \(condition) \(request.body.count)".utf8))
        }
        return (server, try server.start())
    }

    /// Sends a body of `bodyCount` bytes with `method` and expects the handler's answer.
    private func expectAnswer(_ port: UInt16, method: String, bodyCount: Int, status: Int, text: String) throws {
        let response = try RawHTTPClient.send(port: port, method: method, target: "/", body: Array(repeating: 0x61, count: bodyCount))
        #expect(response.status == status)
        #expect(response.text == text)
    }

    @Test func aPlainHandlerIsServed() throws {
        let (server, port) = try startPlainServer()
        defer { server.stop() }
        let response = try RawHTTPClient.send(port: port, target: "/greeting")
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/plain")
        #expect(response.text == "hello GET 0")
        try expectAnswer(port, method: "POST", bodyCount: 10, status: 200, text: "hello POST 10")
    }

    @Test func aBodyTooLargeReachesTheHandlerAsACondition() throws {
        let (server, port) = try startPlainServer { $0.maxBodySize = 16 }
        defer { server.stop() }
        // Declared too large, and found too large as a chunked body arrives.
        try expectAnswer(port, method: "PUT", bodyCount: 17, status: 413, text: "PUT bodyTooLarge(limit: 16) 0")
        let chunked = "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
            + "10\r\n0123456789abcdef\r\n2\r\nxy\r\n0\r\n\r\n"
        let arrived = try RawHTTPClient.parse(HTTPHardeningTests.exchange(Array(chunked.utf8), port: port).received)
        #expect(arrived.status == 413)
        #expect(arrived.text == "POST bodyTooLarge(limit: 16) 0")
    }

    @Test func aBodyWithoutRoomReachesTheHandlerAsACondition() throws {
        let (server, port) = try startPlainServer { $0.bodyMemoryBudget = 8 }
        defer { server.stop() }
        try expectAnswer(port, method: "POST", bodyCount: 10, status: 503, text: "POST bodyMemoryExhausted 0")
        try expectAnswer(port, method: "POST", bodyCount: 4, status: 200, text: "hello POST 4")
    }

    @Test func aRefusedHeadReachesTheHandlerAsAConditionAndClosesTheConnection() throws {
        let (server, port) = try startPlainServer()
        defer { server.stop() }
        let head = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        let exchange = try HTTPHardeningTests.exchange(Array(head.utf8), port: port)
        let response = try exchange.first()
        #expect(response.status == 400)
        #expect(response.text == "POST framing(HTTPCore.FramingViolation.lengthWithTransferEncoding) 0")
        #expect(response.header("Connection") == "close")
        #expect(exchange.closed)
    }

    /// The answers to refused connections are whole responses, rendered once; the listener sends
    /// them as they are.
    @Test func aRefusalIsRenderedAsAWholeResponseThatClosesItsConnection() {
        let refusal = HTTPResponse(status: 429, headers: [("Content-Type", "text/plain"), ("Retry-After", "1")], body: Array("slow down".utf8))
        #expect(String(decoding: refusal.closingBytes, as: UTF8.self)
            == "HTTP/1.1 429 Too Many Requests\r\nContent-Type: text/plain\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 9\r\n\r\nslow down")
        let defaults = HTTPServer.Configuration()
        #expect(String(decoding: defaults.refusalAtLimit.closingBytes, as: UTF8.self).hasPrefix("HTTP/1.1 503 Service Unavailable\r\n"))
        #expect(String(decoding: defaults.refusalPerAddress.closingBytes, as: UTF8.self).hasPrefix("HTTP/1.1 429 Too Many Requests\r\n"))
    }

    /// A plain server refuses connections past its limit with its own answer.
    @Test func aConnectionPastTheLimitGetsTheConfiguredRefusal() throws {
        let (server, port) = try startPlainServer { configuration in
            configuration.connectionLimit = 1
            configuration.refusalAtLimit = HTTPResponse(status: 503, headers: [("Content-Type", "text/plain")], body: Array("full".utf8))
        }
        defer { server.stop() }
        let kept = try RawHTTPClient.connect(port: port)
        defer { close(kept) }
        // The kept connection holds the only slot once the listener has taken it.
        Thread.sleep(forTimeInterval: 0.2)
        let refused = try RawHTTPClient.parse(HTTPHardeningTests.exchange([], port: port).received)
        #expect(refused.status == 503)
        #expect(refused.text == "full")
        #expect(refused.header("Connection") == "close")
    }
}
