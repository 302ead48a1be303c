import EDM

/// `Set(key)`: one entity of an entity set, addressed by the value of its one key property, the
/// most frequent target of all. A cached parse keeps it beside the parse
/// (`ParseCache.Entry.keyedEntity`), so that reading the entity touches neither the parse's path
/// nor its key: each is storage of its own, and with a thread's thousand other kept targets
/// between two requests for it, each was out of the processor's caches, and retaining each (a
/// locked instruction) waited for it.
public struct KeyedEntity: Sendable {
    public let set: EntitySet
    public let key: EDMValue
}

extension UriInfo {
    /// The entity this target addresses when it is `Set(key)` with a key of one property.
    public var keyedEntity: KeyedEntity? {
        guard case .entity(let path) = resource, path.segments.count == 1,
              case .entitySet(let set, let key?) = path.segments[0], key.count == 1
        else { return nil }
        return KeyedEntity(set: set, key: key[0])
    }
}
