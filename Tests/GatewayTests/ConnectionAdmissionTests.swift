import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The real `dealer-gateway` under connection floods, slow clients and large bodies: what it
/// refuses, what it keeps serving, and that it still stops at once when told to.
@Suite struct ConnectionAdmissionTests {
    /// A gateway process on a fresh copy of the seeded database, with `options` added to `serve`.
    private func gateway(_ options: [String], log: FileHandle = .nullDevice) throws -> (GatewayProcess, cleanup: () -> Void) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("admission-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let process = try GatewayProcess(arguments: ["serve", "--schema", "Schema/CarDealer.edmx", "--seed", "SeedData",
                                                     "--db", directory.appendingPathComponent("db.sqlite").path, "--port", "0"] + options,
                                         standardError: log)
        return (process, { try? FileManager.default.removeItem(at: directory) })
    }

    @Test func aFloodAtThreeTimesTheLimitIsRefusedAndTheOpenConnectionsAreServed() throws {
        let (gateway, cleanup) = try gateway(["--max-connections", "40", "--max-connections-per-client", "0"])
        defer { cleanup() }
        let kept = try Socket(port: gateway.port)
        #expect(try kept.exchange("Person(1)").status == 200)

        let flood = try (0..<120).map { _ in try Socket(port: gateway.port) }
        // 39 more fit beside the kept one; each of the other 81 is answered 503 and closed.
        let refusals = Socket.waitForAnswers(from: flood, count: 81, within: 5)
        #expect(refusals.count == 81)
        #expect(refusals.allSatisfy { $0.hasPrefix("HTTP/1.1 503 ") && $0.contains("\"code\":\"ServiceUnavailable\"") })
        #expect(try kept.exchange("Person(2)").status == 200, "an open connection is served during the flood")

        flood.forEach { $0.close() }
        // The slots of the closed connections come back as libmicrohttpd sees them close.
        let deadline = Date().addingTimeInterval(3)
        var status = 0
        while status != 200 && Date() < deadline {
            status = (try? Socket(port: gateway.port).exchange("Person(3)").status) ?? 0
            if status != 200 { usleep(50_000) }
        }
        #expect(status == 200, "a new connection is served once the flood is gone")
        #expect(gateway.stop(timeout: 5) == 0)
    }

    @Test func oneClientAddressCannotTakeEveryConnection() throws {
        let (gateway, cleanup) = try gateway(["--max-connections", "100", "--max-connections-per-client", "5"])
        defer { cleanup() }
        let held = try (0..<5).map { _ in try Socket(port: gateway.port) }
        let sixth = try Socket(port: gateway.port)
        let answer = try #require(Socket.waitForAnswers(from: [sixth], count: 1, within: 3).first)
        #expect(answer.hasPrefix("HTTP/1.1 429 "))
        #expect(answer.contains("Retry-After: 1"))
        #expect(answer.contains("\"code\":\"TooManyConnections\""))
        #expect(try Socket(port: gateway.port, from: "127.0.0.2").exchange("Person(1)").status == 200,
                "another address is served")
        #expect(try held[0].exchange("Person(1)").status == 200, "the held connections are served")
    }

    @Test func aRequestHeadThatTricklesInIsClosedAtItsDeadline() throws {
        let (gateway, cleanup) = try gateway(["--request-head-timeout", "1"])
        defer { cleanup() }
        let slow = try Socket(port: gateway.port)
        let start = Date()
        var closed = false
        // A byte every 100 ms keeps libmicrohttpd's idle timeout from ever firing.
        for byte in Array("GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: 60) {
            guard slow.send([byte]), !slow.isClosedByPeer() else { closed = true; break }
            usleep(100_000)
        }
        let elapsed = Date().timeIntervalSince(start)
        #expect(closed, "the connection was closed before its head was complete")
        #expect(elapsed >= 0.9 && elapsed < 2.5, "closed after \(elapsed) s, with a deadline of 1 s")

        // A connection that sent its request in time is served, and its next head is due
        // within the deadline too: idle past it, the connection is closed.
        let prompt = try Socket(port: gateway.port)
        #expect(try prompt.exchange("Person(1)").status == 200)
        usleep(1_800_000)
        #expect(prompt.isClosedByPeer())
    }

    @Test func bodiesBeyondTheMemoryBudgetAreRefusedAndTheirRoomComesBack() throws {
        let (gateway, cleanup) = try gateway(["--body-memory-mb", "1", "--max-body-size", "4000000"])
        defer { cleanup() }
        let size = 700_000
        let head = { (length: Int) in
            "POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: \(length)\r\n\r\n"
        }
        // The first body takes 700 kB of the 1 MiB; a second of the same size finds no room.
        let first = try Socket(port: gateway.port)
        #expect(first.send(Array(head(size).utf8) + Array(repeating: UInt8(ascii: " "), count: size / 2)))
        usleep(200_000)
        let second = try Socket(port: gateway.port)
        #expect(second.send(Array(head(size).utf8)))
        let refused = try second.readResponse()
        #expect(refused.status == 503)
        #expect(refused.header("Retry-After") == "1")
        #expect(try refused.errorMessage().contains("request bodies"))

        // A body of unknown length is counted as it arrives.
        let chunked = try Socket(port: gateway.port)
        let chunk = Array(repeating: UInt8(ascii: " "), count: 100_000)
        var request = Array("POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nTransfer-Encoding: chunked\r\n\r\n".utf8)
        for _ in 0..<5 { request += Array("186a0\r\n".utf8) + chunk + Array("\r\n".utf8) }
        request += Array("0\r\n\r\n".utf8)
        #expect(chunked.send(request))
        #expect(try chunked.readResponse().status == 503)

        // The first body ends (it is not an entity: 400), and its room is free again.
        #expect(first.send(Array(repeating: UInt8(ascii: " "), count: size - size / 2)))
        #expect(try first.readResponse().status == 400)
        let third = try Socket(port: gateway.port)
        #expect(third.send(Array(head(size).utf8) + Array(repeating: UInt8(ascii: " "), count: size)))
        #expect(try third.readResponse().status == 400, "the room of the finished body was given back")
    }

    @Test(measuresResidentMemory) func heldBodiesTakeNoMoreThanTheBudgetAndTheirMemoryLeavesWithThem() throws {
        let (gateway, cleanup) = try gateway([])
        defer { cleanup() }
        #expect(try gateway.get("Person(1)").status == 200)
        let before = try gateway.residentMegabytes()
        // 40 clients each send one byte short of a 9 MiB body and wait.
        let size = 9 << 20
        let clients = try (0..<40).map { _ in try Socket(port: gateway.port) }
        let filler = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 16)
        var refused = 0
        for client in clients {
            guard client.send(Array("POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: \(size)\r\n\r\n".utf8)) else { continue }
            var sent = 0
            while sent < size - 1 {
                let count = min(filler.count, size - 1 - sent)
                guard client.send(Array(filler[0..<count])) else { break }
                sent += count
            }
            if sent < size - 1 { refused += 1 }
        }
        usleep(300_000)
        let holding = try gateway.residentMegabytes()
        #expect(refused >= 32, "at most 7 bodies of 9 MiB fit in the 64 MiB budget; \(refused) were refused")
        #expect(holding - before < 80, "RSS grew from \(before) to \(holding) MB")
        clients.forEach { $0.close() }
        let deadline = Date().addingTimeInterval(3)
        var after = holding
        while after - before >= 16 && Date() < deadline {
            usleep(100_000)
            after = try gateway.residentMegabytes()
        }
        #expect(after - before < 16, "RSS was \(before) MB before, \(holding) MB holding the bodies, \(after) MB after they closed")
    }

    @Test func stopsWithinFiveSecondsWhateverItsConnectionsAreDoing() throws {
        let (gateway, cleanup) = try gateway(["--max-connections", "60", "--max-connections-per-client", "0"])
        defer { cleanup() }
        let idle = try (0..<100).map { _ in try Socket(port: gateway.port) }
        let keptAlive = try Socket(port: gateway.port)
        _ = try? keptAlive.exchange("Person(1)")
        let uploading = try Socket(port: gateway.port)
        _ = uploading.send(Array("POST /CarDealer.svc/Person HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5000000\r\n\r\n{".utf8))
        let trickling = try Socket(port: gateway.port)
        _ = trickling.send(Array("GET /CarDealer.svc/Person(1) HTTP/1.1\r\nHo".utf8))
        let start = Date()
        let status = gateway.stop(timeout: 5)
        #expect(status != nil, "stopped within 5 s (took \(Date().timeIntervalSince(start)) s)")
        _ = idle
    }
}

extension GatewayProcess {
    /// The process's resident memory, in MB (VmRSS).
    func residentMegabytes() throws -> Int {
        let status = try String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
              let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "") else {
            throw TestFailure("no VmRSS in /proc/\(process.processIdentifier)/status")
        }
        return kilobytes / 1024
    }
}

/// A client connection held open by a test, from a chosen loopback address.
private final class Socket {
    let fd: Int32
    private var isOpen = true

    init(port: UInt16, from source: String = "127.0.0.1") throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed: \(String(cString: strerror(errno)))") }
        var timeout = timeval(tv_sec: 10, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(source)
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let size = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &local) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, size) } }
        let connected = withUnsafePointer(to: &remote) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, size) } }
        guard bound == 0, connected == 0 else {
            Glibc.close(fd)
            throw TestFailure("cannot connect from \(source) to port \(port): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close() }

    func close() {
        if isOpen { Glibc.close(fd) }
        isOpen = false
    }

    /// Writes all of `bytes`; false when the connection no longer takes them.
    func send(_ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard n > 0 else { return false }
            sent += n
        }
        return true
    }

    /// Whether the server has closed the connection: it reads as ended (or reset) at once.
    func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        let n = recv(fd, &byte, 1, Int32(MSG_DONTWAIT | MSG_PEEK))
        return n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
    }

    /// Sends a keep-alive GET of `target` below the service root and reads its response.
    func exchange(_ target: String) throws -> RawHTTPResponse {
        try RawHTTPClient.exchangeKeepingAlive(fd, method: "GET", target: "/CarDealer.svc/" + target,
                                               fields: [("Host", "127.0.0.1"), ("Accept", "application/json")])
    }

    /// Reads one response, up to its Content-Length.
    func readResponse() throws -> RawHTTPResponse { try RawHTTPClient.readResponse(fd) }

    /// What the server wrote, unasked, to `count` of `sockets` within `seconds`: a refusal is
    /// written as soon as the connection is accepted.
    static func waitForAnswers(from sockets: [Socket], count: Int, within seconds: Double) -> [String] {
        var answers: [Int32: String] = [:]
        let deadline = Date().addingTimeInterval(seconds)
        while answers.count < count && Date() < deadline {
            var descriptors = sockets.filter { answers[$0.fd] == nil }.map { pollfd(fd: $0.fd, events: Int16(POLLIN), revents: 0) }
            guard poll(&descriptors, nfds_t(descriptors.count), 100) > 0 else { continue }
            for descriptor in descriptors where descriptor.revents != 0 {
                var buffer = [UInt8](repeating: 0, count: 1024)
                let n = buffer.withUnsafeMutableBytes { recv(descriptor.fd, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                answers[descriptor.fd] = n > 0 ? String(decoding: buffer[0..<n], as: UTF8.self) : ""
            }
        }
        return Array(answers.values)
    }
}
