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
/// A `delegate`, when set, observes every request (see `RestConnectionDelegate`).
public final class RestConnection: Sendable {
    /// How methods other than GET and POST go on the wire.
    public enum MethodTunnelling: Sendable {
        /// As themselves: `MERGE Person(1)`.
        case none
        /// As `POST` with `X-HTTP-Method: MERGE` (or PUT, PATCH, DELETE), for proxies and
        /// servers that only pass GET and POST.
        case post
    }

    /// The service root; relative paths are resolved against it. It always ends with `/`.
    public let baseURL: URL
    /// Header fields sent with every request unless the request sets them itself.
    public let defaultHeaders: [String: String]
    public let timeout: TimeInterval
    public let tunnelling: MethodTunnelling

    private let session: URLSession
    private let delegateReference = Locked(WeakDelegate())

    /// - Parameters:
    ///   - baseURL: the service root, e.g. `http://127.0.0.1:8080/CarDealer.svc/`.
    ///   - headers: extra default header fields; `Accept: application/json` is already one.
    ///   - timeout: seconds to wait for the server before giving up with `.connectionFailed`.
    public init(baseURL: URL, headers: [String: String] = [:], timeout: TimeInterval = 30,
                tunnelling: MethodTunnelling = .none) {
        self.baseURL = RestConnection.directory(baseURL)
        var defaults = ["Accept": "application/json"]
        for (name, value) in headers {
            defaults = defaults.filter { $0.key.lowercased() != name.lowercased() }
            defaults[name] = value
        }
        defaultHeaders = defaults
        self.timeout = timeout
        self.tunnelling = tunnelling
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration)
    }

    /// A connection to a service root given as text; nil if it is not an absolute http(s) URL.
    public convenience init?(baseURLString: String, headers: [String: String] = [:], timeout: TimeInterval = 30) {
        guard let url = URL(string: baseURLString), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else { return nil }
        self.init(baseURL: url, headers: headers, timeout: timeout)
    }

    deinit {
        session.finishTasksAndInvalidate()
    }

    /// The observer of this connection's requests. It is held weakly, as delegates are.
    public var delegate: (any RestConnectionDelegate)? {
        get { delegateReference.withLock { $0.value } }
        set { delegateReference.withLock { $0.value = newValue } }
    }

    // MARK: Sending

    /// Sends a request and returns the response if its status is 2xx.
    ///
    /// Throws `.connectionFailed` when there is no response, and `.httpError` for any other
    /// status, with the OData error from the body when there is one.
    @discardableResult
    public func send(_ request: RestRequest) async throws(RestConnectionError) -> RestResponse {
        let urlRequest = try makeURLRequest(request)
        let url = urlRequest.url ?? baseURL
        // Captured once, so that one request's callbacks all go to the same delegate.
        let delegate = self.delegate
        delegate?.restConnection(self, willSend: urlRequest)

        func fail(_ error: RestConnectionError) -> RestConnectionError {
            delegate?.restConnection(self, failedWith: error, for: urlRequest)
            return error
        }

        let data: Data
        let response: URLResponse
        do {
            (data, response) = try await session.data(for: urlRequest)
        } catch let error as URLError {
            throw fail(.connectionFailed(url: url, reason: RestConnectionError.reason(for: error), code: error.code))
        } catch is CancellationError {
            throw fail(.connectionFailed(url: url, reason: "cancelled", code: .cancelled))
        } catch {
            throw fail(.connectionFailed(url: url, reason: "\(error)", code: nil))
        }
        guard let http = response as? HTTPURLResponse else {
            throw fail(.unexpectedPayload(url: url, reason: "the answer is not an HTTP response"))
        }
        delegate?.restConnection(self, didReceive: http, for: urlRequest)
        guard (200..<300).contains(http.statusCode) else {
            let body = String(decoding: data, as: UTF8.self)
            throw fail(.httpError(url: url, statusCode: http.statusCode, error: ODataError.decode(from: data), body: body))
        }
        delegate?.restConnection(self, finishedReceiving: data, for: urlRequest)
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
        guard let url = URL(string: text, relativeTo: baseURL)?.absoluteURL else {
            throw .invalidRequest(url: baseURL, reason: "\"\(path)\" is not a valid relative URL")
        }
        return url
    }

    func makeURLRequest(_ request: RestRequest) throws(RestConnectionError) -> URLRequest {
        let url = try url(for: request.path, query: request.query)
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
    static func encodeLeniently(_ text: String) -> String {
        var allowed = CharacterSet.urlQueryAllowed
        allowed.insert("%")
        allowed.insert(charactersIn: ":/?@")
        return text.addingPercentEncoding(withAllowedCharacters: allowed) ?? text
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
