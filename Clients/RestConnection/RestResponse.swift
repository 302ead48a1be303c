import Foundation

/// A successful (2xx) answer: status, header fields and the body as received.
public struct RestResponse: Sendable {
    public var url: URL
    public var statusCode: Int
    /// Header fields, names in lower case.
    public var headers: [String: String]
    public var data: Data

    public init(url: URL, statusCode: Int, headers: [String: String], data: Data) {
        self.url = url
        self.statusCode = statusCode
        self.headers = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        self.data = data
    }

    /// A header field, looked up without regard to case.
    public func header(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// The entity's ETag, for a later `If-Match`.
    public var etag: String? { header("ETag") }

    /// The `DataServiceVersion` the server says the response is, e.g. "1.0;" or "2.0;".
    public var dataServiceVersion: String? { header("DataServiceVersion") }

    /// The body as text (UTF-8, with invalid bytes replaced).
    public var text: String { String(decoding: data, as: UTF8.self) }
}
