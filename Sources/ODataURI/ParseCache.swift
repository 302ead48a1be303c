/// Parsed request targets by their text, for one thread. Parsing is a pure function of the
/// model, the limits and the text, and clients repeat their requests (a list page, a search),
/// so a repeated target costs one hash lookup instead of a parse. Only successful parses are
/// kept. Bounded: when full, each new target evicts an arbitrary one, so that a stream of
/// distinct targets (every key of a large set) cannot grow it, and a working set a little over
/// the capacity still mostly hits (starting over when full made it miss every time). Not
/// thread-safe: keep one per thread.
public final class ParseCache {
    private var entries: [String: UriInfo] = [:]
    public let capacity: Int
    /// Longer targets are parsed every time: with them the cache could hold megabytes of
    /// URIs and expression trees, and long queries are seldom the ones repeated.
    public let longestTarget: Int

    public init(capacity: Int = 1024, longestTarget: Int = 1024) {
        self.capacity = capacity
        self.longestTarget = longestTarget
    }

    /// The parse of `target`, from the cache or from `parse`.
    public func info(for target: String, _ parse: () throws(URIError) -> UriInfo) throws(URIError) -> UriInfo {
        guard target.utf8.count <= longestTarget else { return try parse() }
        if let info = entries[target] { return info }
        let info = try parse()
        if entries.count >= capacity { entries.remove(at: entries.startIndex) }
        entries[target] = info
        return info
    }

    public var count: Int { entries.count }
}
