import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A connection to a RESTful service, an OData V2 data service in particular: the blog's
/// RestConnection for today's Swift.
///
/// It is made with a base URL, the service root, and requests name resources relative to it:
///
///     let connection = RestConnection(baseURL: URL(string: "http://127.0.0.1:8080/CarDealer.svc/")!)
///     let person = try await connection.get("Person(1)?$expand=PersonCar,PersonCar/Car")
///
/// Any number of tasks may use one connection at once; each request is independent.
/// A `delegate`, when set, observes every request on the main actor (see `RestConnectionDelegate`).
public final class RestConnection: Sendable {
    /// How methods other than GET and POST go on the wire.
    public enum MethodTunnelling: Sendable {
        /// As themselves: `MERGE Person(1)`.
        case none
        /// As `POST` with `X-HTTP-Method: MERGE` (or PUT, PATCH, DELETE), for proxies and
        /// servers that only pass GET and POST.
        case post
    }

    /// Changes each request just before it is sent, e.g. to set a token that is refreshed
    /// while the connection lives. A thrown error fails the request with `.invalidRequest`.
    public typealias RequestAdapter = @Sendable (URLRequest) async throws -> URLRequest

    /// The service root; relative paths are resolved against it. It always ends with `/`.
    public let baseURL: URL
    /// Header fields sent with every request unless the request sets them itself.
    public let defaultHeaders: [String: String]
    /// Sent with every request, typed calls included.
    public let credentials: Credentials?
    public let trust: ServerTrust
    /// Seconds a whole request may take, from sending to the last byte of the answer; a server
    /// that keeps sending slowly does not extend it.
    public let timeout: TimeInterval
    public let tunnelling: MethodTunnelling

    let session: URLSession
    private let ownsSession: Bool
    /// Why the requested trust cannot be applied; every request then fails rather than falling
    /// back, silently, to the system's trust store.
    private let trustProblem: String?
    /// On Linux, the header value that sends a request with a custom trust through libcurl
    /// (`CurlTrustProtocol`); nil when URLSession applies the trust itself.
    let trustMarker: String?
    private let adapter: RequestAdapter?
    private let delegateReference = Locked(WeakDelegate())
    let lastBodies = Locked(ConditionalCache())

    /// - Parameters:
    ///   - baseURL: the service root, e.g. `http://127.0.0.1:8080/CarDealer.svc/`.
    ///   - headers: extra default header fields; `Accept: application/json` is already one.
    ///   - credentials: an API key or a user and password, sent with every request.
    ///   - trust: which HTTPS servers to trust: the system's store, a CA file or a pinned
    ///     certificate (on Linux, requests with a custom trust run on libcurl directly).
    ///   - timeout: seconds a whole request may take before it fails with `.connectionFailed`.
    ///   - session: a URLSession of your own (its configuration, its delegate, `URLProtocol`s for
    ///     tests); `trust` then is its delegate's business. Without one, an ephemeral session.
    ///   - adapter: changes each request just before it is sent.
    public init(baseURL: URL, headers: [String: String] = [:], credentials: Credentials? = nil,
                trust: ServerTrust = .system, timeout: TimeInterval = 30, tunnelling: MethodTunnelling = .none,
                session: URLSession? = nil, adapter: RequestAdapter? = nil) {
        self.baseURL = RestConnection.directory(baseURL)
        var defaults = ["Accept": "application/json"]
        for (name, value) in headers {
            defaults = defaults.filter { $0.key.lowercased() != name.lowercased() }
            defaults[name] = value
        }
        defaultHeaders = defaults
        self.credentials = credentials
        self.trust = trust
        self.timeout = timeout
        self.tunnelling = tunnelling
        self.adapter = adapter
        if let session {
            self.session = session
            ownsSession = false
            trustProblem = nil
            trustMarker = nil
        } else {
            let configuration = URLSessionConfiguration.ephemeral
            configuration.timeoutIntervalForRequest = timeout
            configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
            #if canImport(Security)
            var delegate: ServerTrustDelegate?
            var problem: String?
            if trust != .system {
                do {
                    delegate = try ServerTrustDelegate(trust)
                } catch {
                    problem = "the certificate for the server trust cannot be read: \(error.localizedDescription)"
                }
            }
            self.session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
            trustProblem = problem
            trustMarker = nil
            #elseif canImport(CCurl)
            // URLSession on Linux cannot take a custom trust: its https requests go through
            // libcurl directly, marked with the trust.
            var problem: String?
            var trustMarker: String?
            if let marker = CurlTrustProtocol.marker(for: trust) {
                do {
                    _ = try CurlTrustProtocol.curlTrust(marker: marker)
                } catch {
                    problem = "the certificate for the server trust cannot be read: \(error.localizedDescription)"
                }
                configuration.protocolClasses = [CurlTrustProtocol.self] + (configuration.protocolClasses ?? [])
                trustMarker = marker
            }
            self.session = URLSession(configuration: configuration)
            trustProblem = problem
            self.trustMarker = trustMarker
            #else
            self.session = URLSession(configuration: configuration)
            trustProblem = trust == .system ? nil : "a custom server trust is not available on this platform"
            trustMarker = nil
            #endif
            ownsSession = true
        }
    }

    /// A connection to a service root given as text; nil if it is not an absolute http(s) URL
    /// with a valid port.
    public convenience init?(baseURLString: String, headers: [String: String] = [:], credentials: Credentials? = nil,
                             trust: ServerTrust = .system, timeout: TimeInterval = 30) {
        guard let url = RestConnection.serviceRoot(baseURLString) else { return nil }
        self.init(baseURL: url, headers: headers, credentials: credentials, trust: trust, timeout: timeout)
    }

    /// The text as a service root URL, or nil if it is not an absolute http(s) URL with a host
    /// and a port from 1 to 65535.
    public static func serviceRoot(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", let host = url.host, !host.isEmpty,
              let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return nil }
        if let port = components.port, !(1...65535).contains(port) { return nil }
        return url
    }

    deinit {
        if ownsSession { session.finishTasksAndInvalidate() }
    }

    /// The observer of this connection's requests. It is held weakly, as delegates are.
    public var delegate: (any RestConnectionDelegate)? {
        get { delegateReference.withLock { $0.value } }
        set { delegateReference.withLock { $0.value = newValue } }
    }

    // MARK: Sending

    /// Sends a request and returns the response if its status is 2xx (or 304 to a request that
    /// asked `If-None-Match`).
    ///
    /// Throws `CancellationError` when the calling task is cancelled, as Swift's own async APIs
    /// do; every other failure is a `RestConnectionError`: `.connectionFailed` when there is no
    /// response in time, `.accessDenied` for 401 and 403, `.httpError` for any other status (with
    /// the OData error from the body when there is one). Every method of the connection that
    /// sends a request throws the same two.
    @discardableResult
    public func send(_ request: RestRequest) async throws -> RestResponse {
        var urlRequest = try makeURLRequest(request)
        if let adapter {
            do {
                urlRequest = try await adapter(urlRequest)
            } catch is CancellationError {
                throw CancellationError()
            } catch {
                throw RestConnectionError.invalidRequest(url: urlRequest.url ?? baseURL, reason: "the request adapter failed: \(error)")
            }
        }
        let url = urlRequest.url ?? baseURL
        let sent = urlRequest
        // Captured once, so that one request's callbacks all go to the same delegate.
        let delegate = self.delegate
        if let delegate { await delegate.restConnection(self, willSend: sent) }

        func fail(_ error: RestConnectionError) async -> RestConnectionError {
            if let delegate { await delegate.restConnection(self, failedWith: error, for: sent) }
            return error
        }
        /// The delegate hears `.cancelled` (it watches requests, not tasks); the caller gets
        /// the `CancellationError` that Swift concurrency code catches.
        func cancelled() async -> CancellationError {
            _ = await fail(.cancelled(url: url))
            return CancellationError()
        }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await transfer(urlRequest)
        } catch let error as URLError {
            if error.code == .cancelled, Task.isCancelled { throw await cancelled() }
            throw await fail(.connectionFailed(url: url, reason: RestConnectionError.reason(for: error), code: error.code))
        } catch is CancellationError {
            throw await cancelled()
        } catch {
            throw await fail(.connectionFailed(url: url, reason: "\(error)", code: nil))
        }
        guard let http = response as? HTTPURLResponse else {
            throw await fail(.unexpectedPayload(url: url, reason: "the answer is not an HTTP response"))
        }
        if let delegate { await delegate.restConnection(self, didReceive: http, for: sent) }
        // A 304 answers a conditional GET the caller asked for; it is no failure.
        let notModified = http.statusCode == 304 && urlRequest.value(forHTTPHeaderField: "If-None-Match") != nil
        guard (200..<300).contains(http.statusCode) || notModified else {
            let body = String(decoding: data, as: UTF8.self)
            let odataError = ODataError.decode(from: data)
            if http.statusCode == 401 || http.statusCode == 403 {
                throw await fail(.accessDenied(url: url, statusCode: http.statusCode, error: odataError,
                                               credentialsSent: credentials != nil || urlRequest.value(forHTTPHeaderField: "Authorization") != nil))
            }
            throw await fail(.httpError(url: url, statusCode: http.statusCode, error: odataError, body: body))
        }
        if let delegate { await delegate.restConnection(self, finishedReceiving: data, for: sent) }
        var headers: [String: String] = [:]
        for (name, value) in http.allHeaderFields {
            headers["\(name)"] = "\(value)"
        }
        return RestResponse(url: url, statusCode: http.statusCode, headers: headers, data: data)
    }

    /// Starts a request and returns at once; the delegate hears how it goes, as in the blog's
    /// `performRequest:`. The returned task gives the response, or nil if it failed.
    @discardableResult
    public func perform(_ request: RestRequest) -> Task<RestResponse?, Never> {
        Task {
            try? await send(request)
        }
    }

    /// The absolute URL a path names: resolved against the base URL, with the query appended.
    public func url(for path: String, query: [URLQueryItem] = []) throws(RestConnectionError) -> URL {
        var text = RestConnection.encodeLeniently(path)
        if !query.isEmpty {
            let options = query.map { item in
                ODataLiteral.percentEncode(item.name, in: .queryValue) + "="
                    + ODataLiteral.percentEncode(item.value ?? "", in: .queryValue)
            }
            text += (text.contains("?") ? "&" : "?") + options.joined(separator: "&")
        }
        // The empty path is the service root itself (its service document).
        guard let url = text.isEmpty ? baseURL : URL(string: text, relativeTo: baseURL)?.absoluteURL else {
            throw .invalidRequest(url: baseURL, reason: "\"\(path)\" is not a valid relative URL")
        }
        return url
    }

    func makeURLRequest(_ request: RestRequest) throws(RestConnectionError) -> URLRequest {
        let url = try url(for: request.path, query: request.query)
        if let trustProblem {
            throw .invalidRequest(url: url, reason: trustProblem)
        }
        var urlRequest = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        var method = request.method
        var headers = defaultHeaders
        if tunnelling == .post, method != .get, method != .post {
            headers["X-HTTP-Method"] = method.rawValue
            method = .post
        }
        if request.body != nil {
            headers["Content-Type"] = "application/json"
        }
        if let credentials {
            let header = credentials.header
            headers[header.name] = header.value
        }
        for (name, value) in request.headers {
            headers = headers.filter { $0.key.lowercased() != name.lowercased() }
            headers[name] = value
        }
        urlRequest.httpMethod = method.rawValue
        for (name, value) in headers {
            urlRequest.setValue(value, forHTTPHeaderField: name)
        }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    /// Percent-encodes what cannot stand in a URL (spaces, quotes, `#`...), leaving `%`
    /// escapes and URL syntax as they are, so `Person?$filter=lastName eq 'Samson'` works as typed.
    /// Inside a quoted literal of the query, `&`, `+`, `#` and `;` are data, not syntax, and a `%`
    /// that starts no escape is a percent sign: `substringof('a&b',x)` and `'50%'` mean what they say.
    static func encodeLeniently(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        allowed.insert(charactersIn: ":/?@")
        func encode(_ part: Substring) -> String {
            String(part).addingPercentEncoding(withAllowedCharacters: allowed) ?? String(part)
        }
        guard let question = text.firstIndex(of: "?") else { return encode(text[...]) }
        var result = encode(text[..<question]) + "?"
        let query = Array(text[text.index(after: question)...])
        var quoted = false
        for (i, character) in query.enumerated() {
            if character == "'" {
                quoted.toggle()
                result += "'"
            } else if quoted, let escape = ["&": "%26", "+": "%2B", "#": "%23", ";": "%3B"][character] {
                result += escape
            } else if character == "%", !(i + 2 < query.count && query[i + 1].isHexDigit && query[i + 2].isHexDigit) {
                result += "%25"
            } else {
                result += encode(String(character)[...])
            }
        }
        return result
    }

    /// The URL as a directory, so that relative paths resolve under it rather than beside it.
    private static func directory(_ url: URL) -> URL {
        let text = url.absoluteString
        if text.hasSuffix("/") { return url }
        return URL(string: text + "/") ?? url
    }
}

/// The delegate, held weakly.
private struct WeakDelegate {
    weak var value: (any RestConnectionDelegate)?
}
