/// The `__metadata` of an entity in verbose JSON: where it lives, its type and its ETag.
public struct ODataMetadata: Codable, Sendable, Hashable {
    /// The entity's absolute URI, e.g. `http://127.0.0.1:8080/CarDealer.svc/Person(1)`.
    public var uri: String?
    /// The namespace-qualified type, e.g. `edmexampleModel.Person`.
    public var type: String?
    /// The ETag, to send as `If-Match` with an update or delete.
    public var etag: String?

    public init(uri: String? = nil, type: String? = nil, etag: String? = nil) {
        self.uri = uri
        self.type = type
        self.etag = etag
    }
}
