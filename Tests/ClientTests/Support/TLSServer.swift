import Foundation

/// `openssl s_server -www` on a loopback port with a self-signed certificate made at test time:
/// a real TLS server for checking what a client trusts. Its certificate is its own CA.
final class TLSServer: @unchecked Sendable {
    let port: UInt16
    let certificate: URL
    private let directory: URL
    private let process: Process

    init() throws {
        directory = try TestPaths.temporaryDirectory("tls")
        certificate = directory.appendingPathComponent("cert.pem")
        let key = directory.appendingPathComponent("key.pem")
        let openssl = URL(fileURLWithPath: "/usr/bin/env")
        let made = try ProcessRunner.run(openssl, [
            "openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
            "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key.path, "-out", certificate.path,
        ])
        guard made.status == 0 else { throw TestFailure("openssl req failed: \(made.stderr)") }

        // A free port: bound and released by a listener of our own.
        let probe = try SilentListener()
        port = probe.port
        probe.close()
        process = Process()
        process.executableURL = openssl
        process.arguments = ["openssl", "s_server", "-accept", "127.0.0.1:\(port)", "-cert", certificate.path,
                             "-key", key.path, "-www", "-quiet"]
        process.standardInput = Pipe()
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(20)
        while !TLSServer.accepts(port) {
            guard process.isRunning, Date() < deadline else {
                stop()
                throw TestFailure("openssl s_server did not start on port \(port)")
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    var root: String { "https://127.0.0.1:\(port)/" }

    private static func accepts(_ port: UInt16) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
    }

    /// SIGKILL: a child of the test runner starts with SIGTERM blocked, and s_server never unblocks it.
    func stop() {
        if process.isRunning {
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: directory)
    }
}
