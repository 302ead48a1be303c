// Why unsafe: this file is the boundary with libcurl, a C library. Its options take C strings,
// lists and blobs by pointer, and its callbacks get their context back as a raw pointer to an
// object this file retains for exactly as long as `curl_easy_perform` runs; nothing unsafe
// leaves the file.
#if canImport(FoundationNetworking) && canImport(CCurl)
import CCurl
import Foundation
import FoundationNetworking

/// What libcurl must trust for one exchange: the anchors as PEM text, and for a pinned
/// certificate the SHA-256 of its public key, which the server's own certificate must carry.
struct CurlTrust: Sendable {
    var anchorsPEM: Data
    var pinnedPublicKey: String?
}

/// One HTTP exchange run by libcurl on the calling thread, start to end.
final class CurlExchange: @unchecked Sendable {
    /// What the exchange reports as it goes, on the thread that runs it.
    struct Events {
        /// The status, its reason phrase and the header fields, once, before any body.
        var response: (Int, [String: String]) -> Void
        /// A piece of the body, as it arrives.
        var data: (Data) -> Void
        /// Whether the exchange should stop now.
        var stopped: () -> Bool
    }

    private let events: Events
    private var status = 0
    private var headers: [String: String] = [:]
    private var responded = false

    private init(events: Events) {
        self.events = events
    }

    /// libcurl's global state is set up once, before any thread uses it.
    private static let initialized: Bool = curl_global_init(Int(CURL_GLOBAL_DEFAULT)) == CURLE_OK

    /// Runs the request; the error, if it failed, is a `URLError` as URLSession would give.
    static func perform(_ request: URLRequest, body: Data?, trust: CurlTrust, timeout: TimeInterval,
                        events: Events) -> URLError? {
        guard initialized, let url = request.url, let handle = curl_easy_init() else {
            return URLError(.unknown, userInfo: [NSLocalizedDescriptionKey: "libcurl could not be set up"])
        }
        defer { curl_easy_cleanup(handle) }
        let exchange = CurlExchange(events: events)
        let context = Unmanaged.passRetained(exchange)
        defer { context.release() }

        var list: UnsafeMutablePointer<curl_slist>?
        defer { curl_slist_free_all(list) }
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            list = curl_slist_append(list, "\(name): \(value)")
        }
        // URLSession sends a body at once; curl would otherwise wait for a 100 Continue.
        list = curl_slist_append(list, "Expect:")

        let method = request.httpMethod ?? "GET"
        _ = cardealer_curl_set_string(handle, CURLOPT_URL, url.absoluteString)
        _ = cardealer_curl_set_long(handle, CURLOPT_NOSIGNAL, 1)
        _ = cardealer_curl_set_string(handle, CURLOPT_PROTOCOLS_STR, "http,https")
        _ = cardealer_curl_set_pointer(handle, CURLOPT_HTTPHEADER, list)
        if let body {
            _ = cardealer_curl_set_offset(handle, CURLOPT_POSTFIELDSIZE_LARGE, curl_off_t(body.count))
            if body.isEmpty {
                _ = cardealer_curl_set_string(handle, CURLOPT_COPYPOSTFIELDS, "")
            } else {
                _ = body.withUnsafeBytes { bytes in
                    cardealer_curl_set_pointer(handle, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
                }
            }
        }
        if method == "HEAD" {
            _ = cardealer_curl_set_long(handle, CURLOPT_NOBODY, 1)
        } else if method != "GET" || body != nil {
            _ = cardealer_curl_set_string(handle, CURLOPT_CUSTOMREQUEST, method)
        }

        _ = cardealer_curl_set_long(handle, CURLOPT_SSL_VERIFYPEER, 1)
        _ = cardealer_curl_set_long(handle, CURLOPT_SSL_VERIFYHOST, 2)
        let anchors = trust.anchorsPEM
        _ = anchors.withUnsafeBytes { bytes in
            cardealer_curl_set_blob(handle, CURLOPT_CAINFO_BLOB, UnsafeMutableRawPointer(mutating: bytes.baseAddress), bytes.count)
        }
        // Only the given anchors: not the system's directory of CAs as well.
        _ = cardealer_curl_set_pointer(handle, CURLOPT_CAPATH, nil)
        if let pinned = trust.pinnedPublicKey {
            _ = cardealer_curl_set_string(handle, CURLOPT_PINNEDPUBLICKEY, pinned)
        }

        if timeout > 0 {
            _ = cardealer_curl_set_long(handle, CURLOPT_TIMEOUT_MS, Int(min(timeout * 1000, Double(Int32.max))))
        }
        _ = cardealer_curl_set_pointer(handle, CURLOPT_HEADERDATA, context.toOpaque())
        _ = cardealer_curl_set_data_callback(handle, CURLOPT_HEADERFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue()
            let line = String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self)
            exchange.header(line)
            return size * count
        }
        _ = cardealer_curl_set_pointer(handle, CURLOPT_WRITEDATA, context.toOpaque())
        _ = cardealer_curl_set_data_callback(handle, CURLOPT_WRITEFUNCTION) { data, size, count, context in
            guard let data, let context else { return 0 }
            let exchange = Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue()
            if exchange.events.stopped() { return 0 }
            exchange.respond()
            exchange.events.data(Data(UnsafeRawBufferPointer(start: data, count: size * count)))
            return size * count
        }
        _ = cardealer_curl_set_long(handle, CURLOPT_NOPROGRESS, 0)
        _ = cardealer_curl_set_pointer(handle, CURLOPT_XFERINFODATA, context.toOpaque())
        _ = cardealer_curl_set_progress_callback(handle) { context, _, _, _, _ in
            guard let context else { return 1 }
            return Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue().events.stopped() ? 1 : 0
        }

        var message = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        let code = message.withUnsafeMutableBufferPointer { buffer -> CURLcode in
            _ = cardealer_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, buffer.baseAddress)
            return curl_easy_perform(handle)
        }
        _ = cardealer_curl_set_pointer(handle, CURLOPT_ERRORBUFFER, nil)
        guard code == CURLE_OK else {
            let detail = message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
            return error(code, detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail)
        }
        var status = 0
        _ = cardealer_curl_get_long(handle, CURLINFO_RESPONSE_CODE, &status)
        exchange.status = status
        exchange.respond()
        return nil
    }

    /// A header line: a status line starts a new response (after a 100 Continue, say).
    private func header(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespacesAndNewlines)
        if trimmed.hasPrefix("HTTP/") {
            headers = [:]
            status = trimmed.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
        } else if let colon = trimmed.firstIndex(of: ":") {
            let name = String(trimmed[..<colon])
            let value = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if let earlier = headers[name] {
                headers[name] = earlier + ", " + value
            } else {
                headers[name] = value
            }
        }
    }

    private func respond() {
        guard !responded else { return }
        responded = true
        events.response(status, headers)
    }

    private static func error(_ code: CURLcode, _ detail: String) -> URLError {
        let info = [NSLocalizedDescriptionKey: detail]
        switch code {
        case CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_PINNEDPUBKEYNOTMATCH, CURLE_SSL_CACERT_BADFILE:
            return URLError(.serverCertificateUntrusted, userInfo: info)
        case CURLE_SSL_CONNECT_ERROR:
            return URLError(.secureConnectionFailed, userInfo: info)
        case CURLE_OPERATION_TIMEDOUT:
            return URLError(.timedOut, userInfo: info)
        case CURLE_ABORTED_BY_CALLBACK, CURLE_WRITE_ERROR:
            return URLError(.cancelled, userInfo: info)
        case CURLE_COULDNT_CONNECT:
            return URLError(.cannotConnectToHost, userInfo: info)
        case CURLE_COULDNT_RESOLVE_HOST:
            return URLError(.cannotFindHost, userInfo: info)
        case CURLE_UNSUPPORTED_PROTOCOL, CURLE_URL_MALFORMAT:
            return URLError(.unsupportedURL, userInfo: info)
        case CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE:
            return URLError(.networkConnectionLost, userInfo: info)
        default:
            return URLError(.unknown, userInfo: info)
        }
    }
}
#endif
