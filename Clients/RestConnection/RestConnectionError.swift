import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request failed, told apart because each case needs different handling. A connection's
/// methods throw this for every failure but one: a cancelled task's call throws
/// `CancellationError`, as Swift's own async APIs do, so
/// `catch let error as RestConnectionError` sees the server's and the network's failures only.
public enum RestConnectionError: Error, Sendable, CustomStringConvertible {
    /// The server could not be reached, or the exchange broke off: refused, timed out, unknown host.
    case connectionFailed(url: URL, reason: String, code: URLError.Code?)
    /// The server answered with a status other than 2xx. A data service sends its error as a
    /// normal response body, decoded here when it is one.
    case httpError(url: URL, statusCode: Int, error: ODataError?, body: String)
    /// The server answered 2xx, but not with what was asked for: not JSON, no `d`, a wrong shape,
    /// or values that do not fit the expected type.
    case unexpectedPayload(url: URL, reason: String)
    /// The request could not be made at all: a path that is no URL. Nothing was sent.
    case invalidRequest(url: URL, reason: String)
    /// 401 (no valid credentials) or 403 (valid credentials without the right to do this).
    /// `credentialsSent` tells a missing key from a refused one.
    case accessDenied(url: URL, statusCode: Int, error: ODataError?, credentialsSent: Bool)
    /// The calling task was cancelled before the answer arrived. Only a delegate sees this
    /// case; the cancelled call itself throws `CancellationError`.
    case cancelled(url: URL)

    public var url: URL {
        switch self {
        case .connectionFailed(let url, _, _), .httpError(let url, _, _, _), .unexpectedPayload(let url, _),
             .invalidRequest(let url, _), .accessDenied(let url, _, _, _), .cancelled(let url):
            return url
        }
    }

    /// The HTTP status code, for an HTTP error.
    public var statusCode: Int? {
        switch self {
        case .httpError(_, let status, _, _), .accessDenied(_, let status, _, _): return status
        default: return nil
        }
    }

    /// The OData error the server sent, for an HTTP error.
    public var odataError: ODataError? {
        switch self {
        case .httpError(_, _, let error, _), .accessDenied(_, _, let error, _): return error
        default: return nil
        }
    }

    /// Whether the request ended because its task was cancelled.
    public var isCancellation: Bool {
        if case .cancelled = self { return true }
        return false
    }

    public var description: String {
        switch self {
        case .connectionFailed(let url, let reason, _):
            return "cannot reach \(url.absoluteString): \(reason)"
        case .httpError(let url, let status, let error, let body):
            let reasonPhrase = HTTPURLResponse.localizedString(forStatusCode: status)
            let detail = error?.message ?? String(body.prefix(200))
            let shown = detail.isEmpty ? "" : ": \(detail)"
            return "\(url.absoluteString) answered \(status) \(reasonPhrase)\(shown)"
        case .unexpectedPayload(let url, let reason):
            return "unexpected response from \(url.absoluteString): \(reason)"
        case .invalidRequest(_, let reason):
            return "invalid request: \(reason)"
        case .accessDenied(let url, let status, let error, let credentialsSent):
            let reasonPhrase = HTTPURLResponse.localizedString(forStatusCode: status)
            let problem: String
            if status == 401 {
                problem = credentialsSent ? "the credentials sent were refused (an unknown, revoked or mistyped key)"
                                          : "the service needs credentials (an API key) and none were sent"
            } else {
                problem = "the credentials are valid but do not give the right to do this"
            }
            let detail = error.map { " (\($0.message))" } ?? ""
            return "\(url.absoluteString) answered \(status) \(reasonPhrase): \(problem)\(detail)"
        case .cancelled(let url):
            return "the request to \(url.absoluteString) was cancelled"
        }
    }

    /// A short reason for a failed connection, as a person would say it.
    static func reason(for error: URLError) -> String {
        switch error.code {
        case .cannotConnectToHost: return "connection refused"
        case .timedOut: return "timed out"
        case .cannotFindHost, .dnsLookupFailed: return "host not found"
        case .networkConnectionLost: return "connection lost"
        case .notConnectedToInternet: return "no network"
        case .badServerResponse: return "bad response from server"
        case .badURL, .unsupportedURL: return "invalid URL"
        case .serverCertificateUntrusted, .serverCertificateHasUnknownRoot, .serverCertificateHasBadDate,
             .serverCertificateNotYetValid, .secureConnectionFailed:
            return "the server's certificate is not trusted (\(error.localizedDescription))"
        case .cancelled: return "cancelled"
        default: return error.localizedDescription
        }
    }
}
