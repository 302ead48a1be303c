import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A minimal HTTP/1.1 client over a plain socket. Tests use it instead of URLSession so that
/// the request target, method and headers reach the server exactly as written.
struct RawHTTPResponse {
    let status: Int
    let headers: [String: String]
    let body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body parsed as JSON.
    func json() throws -> Any { try JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed]) }

    /// `d` of a verbose JSON response.
    func d() throws -> Any {
        guard let object = try json() as? [String: Any], let d = object["d"] else {
            throw TestFailure("no d in \(text.prefix(300))")
        }
        return d
    }

    /// The OData error message of an error response.
    func errorMessage() throws -> String {
        guard let object = try json() as? [String: Any], let error = object["error"] as? [String: Any],
              let message = error["message"] as? [String: Any], let value = message["value"] as? String,
              error["code"] is String, message["lang"] as? String == "en-US" else {
            throw TestFailure("not an OData error body: \(text.prefix(300))")
        }
        return value
    }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

enum RawHTTPClient {
    static func send(port: UInt16, method: String = "GET", target: String, headers: [String: String] = [:],
                     body: [UInt8] = []) throws -> RawHTTPResponse {
        let fd = try connect(port: port)
        defer { close(fd) }
        return try exchange(fd, port: port, method: method, target: target, headers: headers, body: body)
    }

    /// A socket connected to the server on `port`; the caller closes it.
    static func connect(port: UInt16) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestFailure("socket failed") }
        var timeout = timeval(tv_sec: 30, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            close(fd)
            throw TestFailure("cannot connect to port \(port)")
        }
        return fd
    }

    /// Sends one request with `Connection: close` on the connected socket `fd` and reads the
    /// response to its end.
    static func exchange(_ fd: Int32, port: UInt16, method: String = "GET", target: String, headers: [String: String] = [:],
                         body: [UInt8] = []) throws -> RawHTTPResponse {
        var head = "\(method) \(target) HTTP/1.1\r\nConnection: close\r\n"
        var allHeaders = headers
        if !allHeaders.keys.contains(where: { $0.lowercased() == "host" }) { allHeaders["Host"] = "127.0.0.1:\(port)" }
        if !body.isEmpty || ["POST", "PUT", "MERGE", "PATCH"].contains(method) { allHeaders["Content-Length"] = String(body.count) }
        for (name, value) in allHeaders { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        return try exchange(fd, bytes: Array(head.utf8) + body)
    }

    /// Sends `bytes` as they are (a request that need not be well-formed, or UTF-8) on the
    /// connected socket `fd` and reads the response to the connection's end.
    static func exchange(_ fd: Int32, bytes: [UInt8]) throws -> RawHTTPResponse {
        try writeAll(fd, bytes)
        var response: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if n <= 0 { break }
            response.append(contentsOf: buffer[0..<n])
        }
        return try parse(response)
    }

    /// Sends one request with exactly `fields` on the connected socket `fd`, leaving the
    /// connection open, and reads its response: up to its Content-Length.
    static func exchangeKeepingAlive(_ fd: Int32, method: String, target: String, fields: [(String, String)],
                                     body: [UInt8] = []) throws -> RawHTTPResponse {
        let head = "\(method) \(target) HTTP/1.1\r\n" + fields.map { "\($0.0): \($0.1)\r\n" }.joined() + "\r\n"
        try writeAll(fd, Array(head.utf8) + body)
        return try readResponse(fd)
    }

    /// Reads one response from the socket `fd`, up to its Content-Length, leaving the
    /// connection open.
    static func readResponse(_ fd: Int32) throws -> RawHTTPResponse {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            if let head = try? parse(received), let length = head.header("Content-Length").flatMap(Int.init), head.body.count >= length {
                return head
            }
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TestFailure("the connection ended after \(received.count) bytes") }
            received.append(contentsOf: buffer[0..<n])
        }
    }

    /// Writes all of `bytes` to the socket `fd`.
    static func writeAll(_ fd: Int32, _ bytes: [UInt8]) throws {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { throw TestFailure("write failed") }
            sent += n
        }
    }

    static func parse(_ bytes: [UInt8]) throws -> RawHTTPResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0..<max(0, bytes.count - 3)).first(where: { Array(bytes[$0..<$0 + 4]) == separator }) else {
            throw TestFailure("no response head in \(bytes.count) bytes")
        }
        let lines = String(decoding: bytes[0..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else { throw TestFailure("bad status line \(lines[0])") }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return RawHTTPResponse(status: status, headers: headers, body: Array(bytes[(end + 4)...]))
    }
}
