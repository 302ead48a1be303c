import Foundation

extension RestConnection {
    /// Reads a to-many navigation property that came deferred (`{"__deferred":{"uri":...}}`):
    /// `try await connection.load(\.personCar, of: person)` GETs `Person(1)/PersonCar`, every page.
    public func load<Entity: ODataEntity, Target: Decodable>(_ navigation: KeyPath<Entity, [Target]?>, of entity: Entity) async throws -> [Target] {
        try await getAll(Target.self, try navigationPath(navigation, of: entity))
    }

    /// Reads a to-one navigation property that came deferred; nil when no entity is linked.
    public func load<Entity: ODataEntity, Target: Decodable>(_ navigation: KeyPath<Entity, Target?>, of entity: Entity) async throws -> Target? {
        let response = try await send(.get(try navigationPath(navigation, of: entity)))
        guard response.statusCode != 204, !response.data.isEmpty else { return nil }
        if let payload = try? ODataPayload(data: response.data, from: response.url), case .object(let object) = payload,
           object.isEmpty {
            return nil
        }
        return try ODataJSON.decodeEntity(Target.self, from: response.data, url: response.url)
    }

    /// `Person(1)/PersonCar`: the entity's URI and the property's name in the service, which is
    /// the URI the server writes in `__deferred`.
    private func navigationPath<Entity: ODataEntity>(_ navigation: PartialKeyPath<Entity>, of entity: Entity) throws(RestConnectionError) -> String {
        guard let name = Entity.navigationProperties[navigation] else {
            throw .invalidRequest(url: baseURL, reason: "\(Entity.self) declares no navigation property for that key path")
        }
        return "\(entity.uri)/\(name)"
    }
}
