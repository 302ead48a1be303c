import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Why a request failed. The three cases need different handling, so they are told apart.
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

    public var url: URL {
        switch self {
        case .connectionFailed(let url, _, _), .httpError(let url, _, _, _), .unexpectedPayload(let url, _),
             .invalidRequest(let url, _):
            return url
        }
    }

    /// The HTTP status code, for an HTTP error.
    public var statusCode: Int? {
        if case .httpError(_, let status, _, _) = self { return status }
        return nil
    }

    /// The OData error the server sent, for an HTTP error.
    public var odataError: ODataError? {
        if case .httpError(_, _, let error, _) = self { return error }
        return nil
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
        case .cancelled: return "cancelled"
        default: return error.localizedDescription
        }
    }
}
