import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A tiny HTTP/1.1 server on a loopback port that writes down the head of every request and
/// answers each with the same canned response, optionally one byte at a time: for checking what
/// a client sends (credentials), how it takes 401/403, and that its deadline holds.
final class RecordingServer: @unchecked Sendable {
    let port: UInt16
    private let descriptor: Int32
    private let lock = NSLock()
    private var heads: [String] = []
    private var closed = false
    private let response: Data
    private let byteInterval: TimeInterval?

    /// - Parameters:
    ///   - status: the status line's code and reason, e.g. `"200 OK"`.
    ///   - byteInterval: when set, the response is written one byte per interval (a dribbling server).
    init(status: String = "200 OK", headers: [String: String] = [:], body: String = #"{"d":{"results":[]}}"#,
         byteInterval: TimeInterval? = nil) throws {
        var head = "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(Data(body.utf8).count)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        response = Data((head + "\r\n" + body).utf8)
        self.byteInterval = byteInterval

        (descriptor, port) = try LoopbackSocket.listen()
        let thread = Thread { [self] in acceptLoop() }
        thread.start()
    }

    /// A service root on this server.
    var root: String { "http://127.0.0.1:\(port)/CarDealer.svc/" }

    /// The heads of the requests received so far, as text.
    var requests: [String] {
        lock.lock()
        defer { lock.unlock() }
        return heads
    }

    /// A header field's value in the `index`th request, looked up without regard to case.
    func header(_ name: String, request index: Int = 0) -> String? {
        let all = requests
        guard index < all.count else { return nil }
        for line in all[index].split(separator: "\r\n").dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            if line[..<colon].lowercased() == name.lowercased() {
                return line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            }
        }
        return nil
    }

    private var isClosed: Bool {
        lock.lock()
        defer { lock.unlock() }
        return closed
    }

    private func acceptLoop() {
        while !isClosed {
            var pollDescriptor = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pollDescriptor, 1, 100) > 0, !isClosed else { continue }
            let client = accept(descriptor, nil, nil)
            guard client >= 0 else { continue }
            Thread { [self] in serve(client) }.start()
        }
    }

    private func serve(_ client: Int32) {
        defer { Glibc.close(client) }
        var received = Data()
        var buffer = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(10)
        while received.range(of: Data("\r\n\r\n".utf8)) == nil, Date() < deadline {
            let count = recv(client, &buffer, buffer.count, 0)
            if count <= 0 { return }
            received.append(contentsOf: buffer[0..<count])
        }
        let headEnd = received.range(of: Data("\r\n\r\n".utf8))?.lowerBound ?? received.endIndex
        lock.lock()
        heads.append(String(decoding: received[..<headEnd], as: UTF8.self))
        lock.unlock()
        if let byteInterval {
            for byte in response {
                if isClosed { return }
                var one = byte
                guard send(client, &one, 1, Int32(MSG_NOSIGNAL)) == 1 else { return }
                Thread.sleep(forTimeInterval: byteInterval)
            }
        } else {
            _ = response.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
    }

    func close() {
        lock.lock()
        let wasClosed = closed
        closed = true
        lock.unlock()
        if !wasClosed { Glibc.close(descriptor) }
    }

    deinit { close() }
}
