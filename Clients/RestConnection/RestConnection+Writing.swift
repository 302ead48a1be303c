import Foundation

extension RestConnection {
    /// How an update goes: MERGE (only the properties sent change) or PUT (the entity is replaced,
    /// properties left out return to their defaults). PATCH is MERGE's later name.
    public enum UpdateMethod: Sendable {
        case merge, put, patch

        var httpMethod: HTTPMethod {
            switch self {
            case .merge: return .merge
            case .put: return .put
            case .patch: return .patch
            }
        }
    }

    // MARK: Untyped

    /// POSTs a new entity to an entity set and returns the created entity, with its key and ETag.
    ///
    /// - Parameter links: navigation properties to bind, by name, to the URIs of existing entities
    ///   (`["Person": "Person(1)"]`), sent as `{"__metadata":{"uri":...}}`.
    public func create(_ properties: JSONObject, in entitySet: String, links: [String: String] = [:]) async throws -> JSONObject {
        var body = properties
        for (navigation, target) in links {
            body[navigation] = .object(["__metadata": .object(["uri": .string(try absoluteURI(target))])])
        }
        let response = try await send(RestRequest(method: .post, path: entitySet, body: Data(JSONValue.object(body).description.utf8)))
        try expectCreated(response)
        guard let created = try ODataPayload(data: response.data, from: response.url).object else {
            throw RestConnectionError.unexpectedPayload(url: response.url, reason: "the created entity is a collection")
        }
        return created
    }

    /// Updates an entity: MERGE by default, PUT on request. Pass the ETag you know as `ifMatch`
    /// to have the server refuse (412) if someone changed the entity since.
    @discardableResult
    public func update(_ path: String, with properties: JSONObject, method: UpdateMethod = .merge, ifMatch etag: String? = nil) async throws -> RestResponse {
        try await send(RestRequest(method: method.httpMethod, path: path, headers: conditional(etag),
                                   body: Data(JSONValue.object(properties).description.utf8)))
    }

    /// DELETEs an entity (or anything else a path names).
    @discardableResult
    public func delete(_ path: String, ifMatch etag: String? = nil) async throws -> RestResponse {
        try await send(RestRequest(method: .delete, path: path, headers: conditional(etag)))
    }

    /// Adds a link: `POST Person(1)/$links/PersonCar` with `{"uri": ".../PersonCar(3)"}`.
    /// For a to-one navigation property, `replace: true` sends PUT, which sets the link instead.
    @discardableResult
    public func link(_ path: String, navigation: String, to target: String, replace: Bool = false) async throws -> RestResponse {
        let body = JSONValue.object(["uri": .string(try absoluteURI(target))])
        return try await send(RestRequest(method: replace ? .put : .post, path: "\(path)/$links/\(navigation)",
                                          body: Data(body.description.utf8)))
    }

    /// Removes a link. For a to-many navigation property, `target` names the entity to unlink
    /// (`"PersonCar(3)"`, of which the key is used); for a to-one, leave it out.
    @discardableResult
    public func unlink(_ path: String, navigation: String, target: String? = nil) async throws -> RestResponse {
        var linkPath = "\(path)/$links/\(navigation)"
        if let target {
            guard let open = target.lastIndex(of: "("), target.hasSuffix(")") else {
                throw RestConnectionError.invalidRequest(url: baseURL, reason: "\"\(target)\" does not end with a key such as (3)")
            }
            linkPath += target[open...]
        }
        return try await send(RestRequest(method: .delete, path: linkPath))
    }

    // MARK: Typed

    /// POSTs a new entity to its entity set and returns it as created (key, ETag and defaults filled in).
    public func create<Entity: ODataEntity>(_ entity: Entity, links: [String: String] = [:]) async throws -> Entity {
        var body = try encodeObject(entity)
        for (navigation, target) in links {
            body[navigation] = .object(["__metadata": .object(["uri": .string(try absoluteURI(target))])])
        }
        let response = try await send(RestRequest(method: .post, path: Entity.entitySetName, body: Data(JSONValue.object(body).description.utf8)))
        try expectCreated(response)
        return try ODataJSON.decodeEntity(Entity.self, from: response.data, url: response.url)
    }

    /// Updates an entity at its URI, with `If-Match` set to the ETag it was read with, and keeps
    /// the entity's ETag current: after the update it holds the ETag the server answered with, so
    /// the same value can be updated (or deleted) again without a 412.
    ///
    /// MERGE (the default) sends only the properties that have a value: a nil property is left
    /// as the server has it, so a struct built locally never wipes fields it does not know.
    /// To clear a property, send PUT (which replaces the entity: every property, nil as null)
    /// or an untyped MERGE with an explicit null (`update(uri, with: ["ssn": nil])`).
    @discardableResult
    public func update<Entity: ODataEntity>(_ entity: inout Entity, method: UpdateMethod = .merge) async throws -> RestResponse {
        var body = try encodeObject(entity)
        if method != .put {
            body = body.filter { $0.value != .null }
        }
        let response = try await update(entity.uri, with: body, method: method, ifMatch: entity.metadata?.etag)
        if let etag = response.etag {
            var metadata = entity.metadata ?? ODataMetadata()
            metadata.etag = etag
            entity.metadata = metadata
        }
        return response
    }

    /// DELETEs an entity at its URI, with `If-Match` set to the ETag it was read with.
    @discardableResult
    public func delete<Entity: ODataEntity>(_ entity: Entity) async throws -> RestResponse {
        try await delete(entity.uri, ifMatch: entity.metadata?.etag)
    }

    // MARK: Helpers

    private func conditional(_ etag: String?) -> [String: String] {
        etag.map { ["If-Match": $0] } ?? [:]
    }

    private func expectCreated(_ response: RestResponse) throws(RestConnectionError) {
        guard response.statusCode == 201 else {
            throw .unexpectedPayload(url: response.url, reason: "expected 201 Created, got \(response.statusCode)")
        }
    }

    /// A URI relative to the service root made absolute, as links in bodies are written.
    private func absoluteURI(_ target: String) throws(RestConnectionError) -> String {
        try url(for: target).absoluteString
    }

    func encodeObject<Value: Encodable>(_ value: Value) throws(RestConnectionError) -> JSONObject {
        do {
            let data = try ODataJSON.makeEncoder().encode(value)
            guard case .object(let object) = try JSONDecoder().decode(JSONValue.self, from: data) else {
                throw RestConnectionError.invalidRequest(url: baseURL, reason: "\(Value.self) does not encode as a JSON object")
            }
            return object
        } catch let error as RestConnectionError {
            throw error
        } catch {
            throw .invalidRequest(url: baseURL, reason: "cannot encode \(Value.self): \(error)")
        }
    }
}
