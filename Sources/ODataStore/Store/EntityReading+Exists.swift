import ODataURI

extension EntityReading {
    /// Whether the path addresses an entity: read in place, nothing kept.
    public func exists(_ path: ResourcePath) throws -> Bool {
        try withSingle(path, streaming: [], memo: nil, budget: .unlimited) { _ in }
    }
}
