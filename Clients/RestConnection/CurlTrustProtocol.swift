#if canImport(FoundationNetworking) && canImport(CCurl)
import Foundation
import FoundationNetworking

/// Runs the https requests of a connection with a custom trust through libcurl directly: on
/// Linux, URLSession runs on libcurl too but never asks its delegate about server trust and
/// offers no way to set the anchors, so a CA file or a pinned certificate could not apply.
/// Registered only in the sessions of such connections, which mark each request with the trust
/// (`trustHeader`, taken off before it is sent): the protocol itself is made by URLSession from
/// its class and the request alone.
final class CurlTrustProtocol: URLProtocol {
    /// The header field that names a connection's trust.
    static let trustHeader = "X-RestConnection-Server-Trust"

    private let stopped = Locked(false)

    override class func canInit(with request: URLRequest) -> Bool {
        request.url?.scheme?.lowercased() == "https" && request.value(forHTTPHeaderField: trustHeader) != nil
    }

    override class func canonicalRequest(for request: URLRequest) -> URLRequest {
        request
    }

    /// The header value that marks a request with `trust`.
    static func marker(for trust: ServerTrust) -> String? {
        switch trust {
        case .system: return nil
        case .certificateAuthority(let file): return "ca " + Data(file.path.utf8).base64EncodedString()
        case .pinnedCertificate(let file): return "pin " + Data(file.path.utf8).base64EncodedString()
        }
    }

    /// The trust a marker names, read from its file.
    static func curlTrust(marker: String) throws -> CurlTrust {
        let parts = marker.split(separator: " ")
        guard parts.count == 2, let path = Data(base64Encoded: String(parts[1])).map({ String(decoding: $0, as: UTF8.self) }) else {
            throw URLError(.unsupportedURL)
        }
        let file = URL(fileURLWithPath: path)
        switch parts[0] {
        case "ca":
            return CurlTrust(anchorsPEM: try ServerTrust.pemCertificates(file), pinnedPublicKey: nil)
        case "pin":
            let der = try ServerTrust.certificateData(file)
            return CurlTrust(anchorsPEM: ServerTrust.pem(der), pinnedPublicKey: try ServerTrust.publicKeyPin(der))
        default:
            throw URLError(.unsupportedURL)
        }
    }

    override func startLoading() {
        var request = self.request
        guard let marker = request.value(forHTTPHeaderField: Self.trustHeader) else {
            client?.urlProtocol(self, didFailWithError: URLError(.unsupportedURL))
            return
        }
        request.setValue(nil, forHTTPHeaderField: Self.trustHeader)
        let trust: CurlTrust
        do {
            trust = try Self.curlTrust(marker: marker)
        } catch {
            client?.urlProtocol(self, didFailWithError: URLError(.serverCertificateUntrusted, userInfo: [
                NSLocalizedDescriptionKey: "the certificate for the server trust cannot be read: \(error.localizedDescription)"]))
            return
        }
        let body = request.httpBody ?? request.httpBodyStream.map(Self.read)
        // URLSession keeps the protocol until it is told the outcome; its client may be told from any thread.
        let run = ProtocolRun(loader: self, request: request)
        let thread = Thread { run.loader.run(run.request, body: body, trust: trust) }
        thread.name = "RestConnection libcurl"
        thread.start()
    }

    override func stopLoading() {
        stopped.withLock { $0 = true }
    }

    private var isStopped: Bool { stopped.withLock { $0 } }

    /// The exchange, on a thread of its own since libcurl blocks; nothing reaches the client
    /// once URLSession has stopped the task. The body reaches it whole, at the end: for a task
    /// with a completion handler, Linux URLSession keeps only the data of a protocol's last
    /// `didLoad`, having buffered the body the same way for its own protocol.
    private func run(_ request: URLRequest, body: Data?, trust: CurlTrust) {
        guard let url = request.url else { return }
        var received = Data()
        let events = CurlExchange.Events(
            response: { [self] status, headers in
                guard !isStopped, let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1",
                                                                  headerFields: headers) else { return }
                client?.urlProtocol(self, didReceive: response, cacheStoragePolicy: .notAllowed)
            },
            data: { received.append($0) },
            stopped: { [self] in isStopped })
        let error = CurlExchange.perform(request, body: body, trust: trust, timeout: request.timeoutInterval, events: events)
        guard !isStopped else { return }
        if let error {
            client?.urlProtocol(self, didFailWithError: error)
        } else {
            if !received.isEmpty { client?.urlProtocol(self, didLoad: received) }
            client?.urlProtocolDidFinishLoading(self)
        }
    }

    /// The protocol and its request, handed to the thread that runs the exchange.
    private struct ProtocolRun: @unchecked Sendable {
        let loader: CurlTrustProtocol
        let request: URLRequest
    }

    private static func read(_ stream: InputStream) -> Data {
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 16_384)
        stream.open()
        defer { stream.close() }
        while true {
            let count = stream.read(&buffer, maxLength: buffer.count)
            guard count > 0 else { break }
            data.append(contentsOf: buffer[..<count])
        }
        return data
    }
}
#endif
