import EDM

/// One step of a resource path: the entity set or a navigation property, with an optional key.
public enum PathSegment: Sendable {
    case entitySet(EntitySet, key: [EDMValue]?)
    case navigation(NavigationProperty, key: [EDMValue]?)

    public var key: [EDMValue]? {
        switch self {
        case .entitySet(_, let key), .navigation(_, let key): return key
        }
    }

    public var targetType: EntityType {
        switch self {
        case .entitySet(let set, _): return set.entityType
        case .navigation(let nav, _): return nav.target
        }
    }
}

/// The entity part of a resource path, `Set(key)/Nav(key)/Nav`, resolved against the model.
public struct ResourcePath: Sendable {
    public let segments: [PathSegment]

    public init(segments: [PathSegment]) {
        precondition(!segments.isEmpty)
        self.segments = segments
    }

    public var targetType: EntityType { segments[segments.count - 1].targetType }

    /// The entity set the addressed entities belong to.
    public var targetSet: EntitySet { targetType.entitySet! }

    /// True when the path addresses one entity (a key on the last segment, or a single-valued navigation).
    public var isSingleEntity: Bool {
        switch segments[segments.count - 1] {
        case .entitySet(_, let key): return key != nil
        case .navigation(let nav, let key): return key != nil || !nav.isCollection
        }
    }

    /// The path without its last segment, or nil for a path of one segment.
    public var parent: ResourcePath? {
        segments.count > 1 ? ResourcePath(segments: Array(segments.dropLast())) : nil
    }

    /// The entity's key when the path ends in `Set(key)` or `Nav(key)`.
    public var lastKey: [EDMValue]? { segments[segments.count - 1].key }
}
