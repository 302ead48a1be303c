import EDM

extension UriInfo {
    /// This parse with the key of each keyed segment replaced by `nextKey(type)`, asked in path
    /// order (a `$links` target's key last); nil as soon as it gives nil.
    func replacingKeys(_ nextKey: (EntityType) -> [EDMValue]?) -> UriInfo? {
        let rekeyed: Resource
        switch resource {
        case .serviceDocument, .metadata, .batch:
            rekeyed = resource
        case .entityCollection(let path):
            guard let path = path.replacingKeys(nextKey) else { return nil }
            rekeyed = .entityCollection(path)
        case .entity(let path):
            guard let path = path.replacingKeys(nextKey) else { return nil }
            rekeyed = .entity(path)
        case .property(let path, let property, let rawValue):
            guard let path = path.replacingKeys(nextKey) else { return nil }
            rekeyed = .property(path, property, rawValue: rawValue)
        case .count(let path):
            guard let path = path.replacingKeys(nextKey) else { return nil }
            rekeyed = .count(path)
        case .links(let source, let navigation, let targetKey):
            guard let source = source.replacingKeys(nextKey) else { return nil }
            var key: [EDMValue]?
            if targetKey != nil {
                guard let parsed = nextKey(navigation.target) else { return nil }
                key = parsed
            }
            rekeyed = .links(source: source, navigation: navigation, targetKey: key)
        }
        return UriInfo(resource: rekeyed, options: options, serviceOperation: serviceOperation)
    }
}

extension ResourcePath {
    /// This path with the key of each keyed segment replaced by `nextKey(type)`, in order.
    fileprivate func replacingKeys(_ nextKey: (EntityType) -> [EDMValue]?) -> ResourcePath? {
        var rekeyed: [PathSegment] = []
        rekeyed.reserveCapacity(segments.count)
        for segment in segments {
            switch segment {
            case .entitySet(_, nil), .navigation(_, nil):
                rekeyed.append(segment)
            case .entitySet(let set, _?):
                guard let key = nextKey(set.entityType) else { return nil }
                rekeyed.append(.entitySet(set, key: key))
            case .navigation(let navigation, _?):
                guard let key = nextKey(navigation.target) else { return nil }
                rekeyed.append(.navigation(navigation, key: key))
            }
        }
        return ResourcePath(segments: rekeyed)
    }
}
