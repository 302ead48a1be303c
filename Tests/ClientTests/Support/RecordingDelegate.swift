import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection

/// Writes down each delegate callback, in the order they come.
@MainActor
final class RecordingDelegate: RestConnectionDelegate {
    enum Event: Equatable {
        case willSend(String)
        case didReceive(Int)
        case finished(Int)
        case failed(String)
    }

    private(set) var events: [Event] = []

    private func record(_ event: Event) {
        events.append(event)
    }

    func restConnection(_ connection: RestConnection, willSend request: URLRequest) {
        record(.willSend(request.url?.absoluteString ?? ""))
    }

    func restConnection(_ connection: RestConnection, didReceive response: HTTPURLResponse, for request: URLRequest) {
        record(.didReceive(response.statusCode))
    }

    func restConnection(_ connection: RestConnection, finishedReceiving data: Data, for request: URLRequest) {
        record(.finished(data.count))
    }

    func restConnection(_ connection: RestConnection, failedWith error: RestConnectionError, for request: URLRequest) {
        switch error {
        case .connectionFailed: record(.failed("connection"))
        case .httpError(_, let status, _, _): record(.failed("http \(status)"))
        case .unexpectedPayload: record(.failed("payload"))
        case .invalidRequest: record(.failed("invalid"))
        case .accessDenied(_, let status, _, _): record(.failed("access \(status)"))
        case .cancelled: record(.failed("cancelled"))
        }
    }
}
