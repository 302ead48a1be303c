import Foundation

/// Requests sent together as one `$batch`: reads, and change sets that the server applies all
/// or nothing. Each request gives a typed `BatchItem` whose value is there once the batch has
/// been sent:
///
///     let batch = ODataBatch()
///     let bob = batch.get(Person.self, Person.uri(personID: 1))
///     batch.changeSet { changes in
///         newcomer = changes.create(Person(firstName: "Ada", lastName: "Lovelace", createDate: .now))
///         changes.delete(oldCar)
///     }
///     try await connection.send(batch)
///     print(try bob.value.lastName, try newcomer.value.personID)
///
/// A batch is built on one task and sent once.
public final class ODataBatch: @unchecked Sendable {
    /// One request in the batch, and what to do with its answer.
    struct Operation {
        var method: HTTPMethod
        var path: String
        var query: [URLQueryItem] = []
        var headers: [String: String] = [:]
        var body: Data?
        var deliver: (Result<RestResponse, RestConnectionError>) -> Void
    }

    enum Part {
        case query(Operation)
        case changeSet([Operation])
    }

    private(set) var parts: [Part] = []
    /// How change sets encode entities: as `RestConnection`'s typed writes do.
    private let encoder = ODataJSON.makeEncoder()

    public init() {}

    /// A GET of one entity (or other object), decoded.
    @discardableResult
    public func get<Value: Decodable>(_ type: Value.Type, _ path: String, query: [URLQueryItem] = []) -> BatchItem<Value> {
        let item = BatchItem<Value>()
        parts.append(.query(Operation(method: .get, path: path, query: query) { result in
            item.result = result.flatMap { response in
                Result { () throws(RestConnectionError) -> Value in
                    try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
                }
            }
        }))
        return item
    }

    /// A GET of one page of a collection, decoded.
    @discardableResult
    public func getCollection<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) -> BatchItem<ODataCollection<Element>> {
        let item = BatchItem<ODataCollection<Element>>()
        parts.append(.query(Operation(method: .get, path: path, query: query) { result in
            item.result = result.flatMap { response in
                Result { () throws(RestConnectionError) -> ODataCollection<Element> in
                    try ODataJSON.decodeCollection(Element.self, from: response.data, url: response.url)
                }
            }
        }))
        return item
    }

    /// A change set: its writes succeed together or fail together.
    public func changeSet(_ build: (ChangeSet) -> Void) {
        let changes = ChangeSet(encoder: encoder)
        build(changes)
        if !changes.operations.isEmpty { parts.append(.changeSet(changes.operations)) }
    }

    /// The writes of one change set.
    public final class ChangeSet {
        fileprivate var operations: [Operation] = []
        private let encoder: JSONEncoder

        fileprivate init(encoder: JSONEncoder) {
            self.encoder = encoder
        }

        /// POSTs a new entity; its value is the entity as created.
        @discardableResult
        public func create<Entity: ODataEntity>(_ entity: Entity) -> BatchItem<Entity> {
            let item = BatchItem<Entity>()
            add(.post, Entity.entitySetName, entity, into: item) { response throws(RestConnectionError) in
                try ODataJSON.decodeEntity(Entity.self, from: response.data, url: response.url)
            }
            return item
        }

        /// MERGEs (by default) or PUTs an entity with `If-Match`; as `RestConnection.update`,
        /// MERGE leaves nil properties out. Its value is the response (with the new ETag).
        @discardableResult
        public func update<Entity: ODataEntity>(_ entity: Entity, method: RestConnection.UpdateMethod = .merge) -> BatchItem<RestResponse> {
            let item = BatchItem<RestResponse>()
            var headers: [String: String] = [:]
            if let etag = entity.metadata?.etag { headers["If-Match"] = etag }
            add(method.httpMethod, entity.uri, entity, headers: headers, omitNulls: method != .put, into: item) { $0 }
            return item
        }

        /// DELETEs an entity with `If-Match`.
        @discardableResult
        public func delete<Entity: ODataEntity>(_ entity: Entity) -> BatchItem<RestResponse> {
            let item = BatchItem<RestResponse>()
            var headers: [String: String] = [:]
            if let etag = entity.metadata?.etag { headers["If-Match"] = etag }
            operations.append(Operation(method: .delete, path: entity.uri, headers: headers) { result in
                item.result = result
            })
            return item
        }

        private func add<Body: Encodable, Value>(_ method: HTTPMethod, _ path: String, _ body: Body, headers: [String: String] = [:],
                                                  omitNulls: Bool = false, into item: BatchItem<Value>,
                                                  decode: @escaping (RestResponse) throws(RestConnectionError) -> Value) {
            var data: Data?
            var failure: RestConnectionError?
            do {
                let encoded = try encoder.encode(body)
                if omitNulls, case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: encoded) {
                    data = Data(JSONValue.object(object.filter { $0.value != .null }).description.utf8)
                } else {
                    data = encoded
                }
            } catch {
                failure = .invalidRequest(url: URL(fileURLWithPath: "/"), reason: "cannot encode \(Body.self): \(error)")
            }
            operations.append(Operation(method: method, path: path, headers: headers, body: data) { result in
                if let failure {
                    item.result = .failure(failure)
                    return
                }
                item.result = result.flatMap { response in Result { () throws(RestConnectionError) -> Value in try decode(response) } }
            })
        }
    }
}

/// The answer to one request of a batch, there once the batch has been sent.
public final class BatchItem<Value>: @unchecked Sendable {
    var result: Result<Value, RestConnectionError>?

    init() {}

    /// The decoded answer; throws the request's error (a failed change set's error for each of
    /// its writes), or `.invalidRequest` if the batch has not been sent.
    public var value: Value {
        get throws(RestConnectionError) {
            guard let result else {
                throw .invalidRequest(url: URL(fileURLWithPath: "/"), reason: "the batch has not been sent")
            }
            return try result.get()
        }
    }
}
