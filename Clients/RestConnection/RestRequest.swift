import Foundation

/// A request to send through a `RestConnection`.
///
/// The path is relative to the connection's base URL (`"Person(1)?$expand=PersonCar,PersonCar/Car"`),
/// or absolute, as the `__next` links of a paged collection are.
public struct RestRequest: Sendable, Equatable {
    public var method: HTTPMethod
    public var path: String
    /// Query options added to those already in `path`, in this order, percent-encoded as needed.
    public var query: [URLQueryItem]
    /// Header fields; they win over the connection's defaults.
    public var headers: [String: String]
    public var body: Data?

    public init(method: HTTPMethod = .get, path: String, query: [URLQueryItem] = [],
                headers: [String: String] = [:], body: Data? = nil) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
    }

    public static func get(_ path: String, query: [URLQueryItem] = []) -> RestRequest {
        RestRequest(method: .get, path: path, query: query)
    }
}
