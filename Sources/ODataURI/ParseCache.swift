/// Parsed request targets by their text, for one thread, each kept with what later layers
/// derive from its parse (the gateway keeps the SQL built for it, see `QueryMemo`). Parsing is
/// a pure function of the model, the limits and the text, and clients repeat their requests (a
/// list page, a search), so a repeated target costs one hash lookup instead of a parse. Only
/// successful parses are kept. Bounded: when full, each new target evicts an arbitrary one, so
/// that a stream of distinct targets (every key of a large set) cannot grow it, and a working
/// set a little over the capacity still mostly hits (starting over when full made it miss every
/// time). Not thread-safe: keep one per thread.
///
/// Its methods are `@inlinable`, so that the module using the cache specializes them for its
/// `Derived`: called generic across modules, each lookup asked the runtime for type metadata.
public final class ParseCache<Derived> {
    public struct Entry {
        public let info: UriInfo
        public let derived: Derived

        @inlinable init(info: UriInfo, derived: Derived) {
            self.info = info
            self.derived = derived
        }
    }

    @usableFromInline var entries: [String: Entry] = [:]
    public let capacity: Int
    /// Longer targets are parsed every time: with them the cache could hold megabytes of
    /// URIs and expression trees, and long queries are seldom the ones repeated.
    public let longestTarget: Int

    public init(capacity: Int = 1024, longestTarget: Int = 1024) {
        self.capacity = capacity
        self.longestTarget = longestTarget
    }

    /// The entry of `target`, from the cache, or made by `parse` and `derive`.
    @inlinable public func entry(for target: String, parse: () throws(URIError) -> UriInfo,
                                 derive: (UriInfo) -> Derived) throws(URIError) -> Entry {
        guard target.utf8.count <= longestTarget else {
            let info = try parse()
            return Entry(info: info, derived: derive(info))
        }
        if let entry = entries[target] { return entry }
        let info = try parse()
        let entry = Entry(info: info, derived: derive(info))
        if entries.count >= capacity { entries.remove(at: entries.startIndex) }
        entries[target] = entry
        return entry
    }

    public var count: Int { entries.count }
}

extension ParseCache where Derived == Void {
    /// The parse of `target`, from the cache or from `parse`.
    @inlinable public func info(for target: String, _ parse: () throws(URIError) -> UriInfo) throws(URIError) -> UriInfo {
        try entry(for: target, parse: parse, derive: { _ in }).info
    }
}
