import Foundation
import HTTPCore
import ODataHTTP
import Testing

/// A body lent from its own storage (`LentBody`) goes out as it is, and the server lets it go
/// once libmicrohttpd has sent it: neither copied nor kept.
@Suite(.timeLimit(.minutes(1))) struct LentBodyTests {
    /// Bytes in storage of their own that count how many are alive.
    final class CountedBody: LentBody, @unchecked Sendable {
        static let lock = NSLock()
        nonisolated(unsafe) static var alive = 0
        let storage: [UInt8]

        init(_ storage: [UInt8]) {
            self.storage = storage
            Self.lock.withLock { Self.alive += 1 }
        }

        deinit { Self.lock.withLock { Self.alive -= 1 } }

        var bytes: UnsafeBufferPointer<UInt8> { storage.withUnsafeBufferPointer { $0 } }

        static var count: Int { lock.withLock { alive } }
    }

    @Test func aLentBodyIsSentAsItIsAndReleasedOnceSent() throws {
        var configuration = HTTPServer.Configuration()
        configuration.port = 0
        configuration.threads = 2
        // Large enough to take several writes to the socket.
        let payload = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        let server = HTTPServer(configuration: configuration) { request in
            let body = CountedBody(request.target == "/empty" ? [] : payload)
            var response = HTTPResponse(status: 200, headers: [("Content-Type", "application/octet-stream")], lending: body)
            #expect(response.bodyCount == body.storage.count)
            #expect(response.body == body.storage, "the array view is a copy of the lent bytes")
            if request.target == "/replaced" { response.body = Array("replaced".utf8) }
            return response
        }
        let port = try server.start()
        defer { server.stop() }
        for _ in 0..<3 {
            let response = try RawHTTPClient.send(port: port, target: "/lent")
            #expect(response.status == 200)
            #expect(response.body == payload)
        }
        #expect(try RawHTTPClient.send(port: port, target: "/empty").body.isEmpty)
        #expect(try RawHTTPClient.send(port: port, target: "/replaced").text == "replaced")
        // libmicrohttpd frees a response once it is sent; the last one may still be on its way out.
        let deadline = Date().addingTimeInterval(5)
        while CountedBody.count > 0 && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        #expect(CountedBody.count == 0, "every lent body was released")
    }
}
