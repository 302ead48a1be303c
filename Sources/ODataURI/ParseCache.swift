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
        /// The target it was parsed from, which a lookup by fingerprint compares. First, so that
        /// it shares a cache line with the entry's reference count and the start of its parse.
        @usableFromInline let target: String
        public let info: UriInfo
        public let derived: Derived

        @inlinable init(target: String, info: UriInfo, derived: Derived) {
            self.target = target
            self.info = info
            self.derived = derived
        }

        /// Whether `bytes` are this entry's target, byte for byte.
        @inlinable func isTarget(_ bytes: Span<UInt8>) -> Bool {
            guard target.utf8.count == bytes.count else { return false }
            let kept = target.utf8.span
            for index in kept.indices where kept[index] != bytes[index] { return false }
            return true
        }
    }

    /// Targets by the fingerprint of their bytes (`TargetFingerprint`, `TargetTable`), each entry
    /// with its target, which a hit compares byte for byte. Keyed by the String itself, a lookup
    /// hashed it with SipHash and compared two Strings through the standard library's general
    /// comparison, about 400 instructions a request (callgrind). Two targets of one fingerprint
    /// take turns in its place, each found only by its own bytes.
    @usableFromInline var byTarget: TargetTable<Entry>
    @usableFromInline var byShape: [TargetShape: Entry] = [:]
    public let capacity: Int
    /// Longer targets are parsed every time: with them the cache could hold megabytes of
    /// URIs and expression trees, and long queries are seldom the ones repeated.
    public let longestTarget: Int

    /// How targets are fingerprinted for `byTarget`; a test gives every target one fingerprint
    /// to see that each is still found by its own bytes.
    @usableFromInline let fingerprint: (Span<UInt8>) -> UInt64

    public init(capacity: Int = 1024, longestTarget: Int = 1024,
                fingerprint: @escaping (Span<UInt8>) -> UInt64 = TargetFingerprint.of) {
        self.capacity = capacity
        self.longestTarget = longestTarget
        self.fingerprint = fingerprint
        byTarget = TargetTable(capacity: capacity)
    }

    /// The entry of `target`, from the cache, or made by `parse` and `derive`.
    @inlinable public func entry(for target: String, parse: () throws(URIError) -> UriInfo,
                                 derive: (UriInfo) -> Derived) throws(URIError) -> Entry {
        try entry(for: target.utf8.span, text: { target }, parse: parse, derive: derive)
    }

    /// The entry of the target whose bytes are `bytes`, from the cache, or made by `parse` and
    /// `derive`; `text` gives the target as a String, which only a target not seen before needs.
    /// A target whose bytes are not UTF-8 is refused (400) before `text` could repair them: a
    /// raw 0xFF in a `$filter` literal would otherwise become U+FFFD and match nothing.
    @inlinable public func entry(for bytes: Span<UInt8>, text: () -> String, parse: () throws(URIError) -> UriInfo,
                                 derive: (UriInfo) -> Derived) throws(URIError) -> Entry {
        guard bytes.count <= longestTarget else {
            try Self.requireUTF8(bytes)
            let info = try parse()
            return Entry(target: text(), info: info, derived: derive(info))
        }
        let fingerprint = fingerprint(bytes)
        if let entry = byTarget.element(for: fingerprint), entry.isTarget(bytes) { return entry }
        // Only targets that parsed are kept, so a hit above is UTF-8 already.
        try Self.requireUTF8(bytes)
        let target = text()
        let shape = TargetShape(target)
        let entry: Entry
        if let shaped = byShape[shape] {
            if let info = shape.rekeying(shaped.info) {
                entry = Entry(target: target, info: info, derived: shaped.derived)
            } else {
                // A key that does not parse: the full parse reports it. (Should it parse after
                // all, its derivations are its own, not those of another parse.)
                let info = try parse()
                entry = Entry(target: target, info: info, derived: derive(info))
            }
        } else {
            let info = try parse()
            entry = Entry(target: target, info: info, derived: derive(info))
            if byShape.count >= capacity { byShape.remove(at: byShape.startIndex) }
            byShape[shape] = entry
        }
        byTarget.set(entry, for: fingerprint)
        return entry
    }

    @usableFromInline static func requireUTF8(_ bytes: Span<UInt8>) throws(URIError) {
        guard (try? UTF8Span(validating: bytes)) == nil else { return }
        throw .badRequest("the request target is not valid UTF-8; percent-encode its characters as UTF-8")
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

/// A 64-bit fingerprint of a target's bytes for `ParseCache`'s table: eight bytes a round
/// (the last round's bytes loaded so that they overlap the one before, the length mixed in
/// first), each round a multiply and a shift, then MurmurHash3's finalizer. Not a defence
/// against chosen collisions, and it need not be one: a collision only makes two targets share a
/// place in the table, where each is still found by its own bytes, and the table's own hashing
/// of the fingerprint is seeded per process as every Swift dictionary's is.
public enum TargetFingerprint {
    @inlinable public static func of(_ text: String) -> UInt64 {
        of(text.utf8.span)
    }

    public static func of(_ bytes: Span<UInt8>) -> UInt64 {
        let count = bytes.count
        var state = 0xcbf2_9ce4_8422_2325 ^ UInt64(count)
        func mix(_ word: UInt64) {
            state = (state ^ word) &* 0x9e37_79b9_7f4a_7c15
            state ^= state >> 32
        }
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                mix(word(bytes, at: offset))
                offset += 8
            }
            if offset < count { mix(word(bytes, at: count - 8)) }
        } else {
            var tail: UInt64 = 0
            for index in 0..<count { tail |= UInt64(bytes[index]) << (8 * UInt64(index)) }
            mix(tail)
        }
        state ^= state >> 33
        state = state &* 0xff51_afd7_ed55_8ccd
        state ^= state >> 33
        state = state &* 0xc4ce_b9fe_1a85_ec53
        return state ^ (state >> 33)
    }

    /// The eight bytes of `bytes` at `offset`, the first the lowest (as a little-endian load).
    @inline(__always)
    private static func word(_ bytes: Span<UInt8>, at offset: Int) -> UInt64 {
        var word: UInt64 = 0
        for index in 0..<8 { word |= UInt64(bytes[offset + index]) << (8 * UInt64(index)) }
        return word
    }
}
