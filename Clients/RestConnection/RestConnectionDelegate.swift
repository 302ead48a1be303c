import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Observes the requests a `RestConnection` performs, as the blog's RestConnectionDelegate did.
///
/// For each request the callbacks arrive in this order: `willSend`, then `didReceive` once a
/// response has arrived, then either `finishedReceiving` (a 2xx response) or `failed` (no
/// response, or a status other than 2xx: a data service's error arrives as a normal response,
/// so the status is checked before anything else). Reading the payload comes after these
/// callbacks: `ODataPayload(data:)` unwraps `d` for a delegate that wants it.
///
/// The callbacks run on the main actor, so a view controller can be the delegate and update its
/// views directly; the request waits for each callback. Requests running at once may interleave
/// their callbacks.
@MainActor
public protocol RestConnectionDelegate: AnyObject, Sendable {
    func restConnection(_ connection: RestConnection, willSend request: URLRequest)
    func restConnection(_ connection: RestConnection, didReceive response: HTTPURLResponse, for request: URLRequest)
    func restConnection(_ connection: RestConnection, finishedReceiving data: Data, for request: URLRequest)
    func restConnection(_ connection: RestConnection, failedWith error: RestConnectionError, for request: URLRequest)
}

extension RestConnectionDelegate {
    public func restConnection(_ connection: RestConnection, willSend request: URLRequest) {}
    public func restConnection(_ connection: RestConnection, didReceive response: HTTPURLResponse, for request: URLRequest) {}
    public func restConnection(_ connection: RestConnection, finishedReceiving data: Data, for request: URLRequest) {}
    public func restConnection(_ connection: RestConnection, failedWith error: RestConnectionError, for request: URLRequest) {}
}
