/// Parsed request targets, for one thread, each kept with what later layers derive from its
/// parse (the gateway keeps the SQL built for it, see `QueryMemo`). Parsing is a pure function of
/// the model, the limits and the text, and clients repeat their requests (a list page, a search),
/// so a repeated target costs one hash lookup instead of a parse. Only successful parses are kept.
///
/// A target met for the first time may still differ from a kept one only in its keys
/// (`Person(8)` after `Person(7)`; `TargetShape`). Its parse is then the kept one with its own
/// keys, and what was derived is shared: the SQL binds each request's keys. So a client reading
/// every key of a large set does not pay a parse and a new SQL statement per key: before, a
/// `Person(n)?$expand=...` with a key not seen yet cost a third more instructions than a repeat.
///
/// Bounded, with two tables of at most `capacity` entries. The targets start over when full: a
/// target that is not kept costs its keys' parse. Shapes, whose misses cost a parse, each evict an
/// arbitrary one when full, so that a stream of distinct shapes (every filter value a client
/// tries) cannot grow them and a working set a little over the capacity still mostly hits.
/// Not thread-safe: keep one per thread.
///
/// Its methods are `@inlinable`, so that the module using the cache specializes them for its
/// `Derived`: called generic across modules, each lookup asked the runtime for type metadata.
public final class ParseCache<Derived> {
    /// A class: a hit hands out one reference rather than a copy of the parse, which
    /// retained each of its parts (the path, the options' trees) again on every request.
    public final class Entry {
        public let info: UriInfo
        public let derived: Derived

        @inlinable init(info: UriInfo, derived: Derived) {
            self.info = info
            self.derived = derived
        }
    }

    @usableFromInline var byTarget: [String: Entry] = [:]
    @usableFromInline var byShape: [TargetShape: Entry] = [:]
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
        if let entry = byTarget[target] { return entry }
        let shape = TargetShape(target)
        let entry: Entry
        if let shaped = byShape[shape] {
            if let info = shape.rekeying(shaped.info) {
                entry = Entry(info: info, derived: shaped.derived)
            } else {
                // A key that does not parse: the full parse reports it. (Should it parse after
                // all, its derivations are its own, not those of another parse.)
                let info = try parse()
                entry = Entry(info: info, derived: derive(info))
            }
        } else {
            let info = try parse()
            entry = Entry(info: info, derived: derive(info))
            if byShape.count >= capacity { byShape.remove(at: byShape.startIndex) }
            byShape[shape] = entry
        }
        if byTarget.count >= capacity { byTarget.removeAll(keepingCapacity: true) }
        byTarget[target] = entry
        return entry
    }

    /// The number of targets kept.
    public var count: Int { byTarget.count }
    /// The number of target shapes kept.
    public var shapeCount: Int { byShape.count }
}

extension ParseCache where Derived == Void {
    /// The parse of `target`, from the cache or from `parse`.
    @inlinable public func info(for target: String, _ parse: () throws(URIError) -> UriInfo) throws(URIError) -> UriInfo {
        try entry(for: target, parse: parse, derive: { _ in }).info
    }
}
