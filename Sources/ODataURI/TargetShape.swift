import EDM

/// A request target with the values of its key predicates left out: `Person(7)?$expand=PersonCar`
/// and `Person(8)?$expand=PersonCar` have one shape. Two targets of one shape parse to the same
/// resource and options but for their keys, so `ParseCache` keeps one parse per shape and puts
/// each request's keys into it; a client reading many keys (every `Person(n)` of a large set)
/// then pays for parsing its keys, not the whole target, and no SQL is built again.
///
/// A key predicate is the text between the first `(` of a path segment and the `)` that ends
/// it. Segments whose name holds a `%` are left whole: their name decodes to something that
/// may hold a `(` of its own.
@usableFromInline struct TargetShape: Hashable {
    let target: String
    /// Where each key predicate's text lies in the target's UTF-8, in path order.
    let keyRanges: [Range<Int>]

    @usableFromInline init(_ target: String) {
        self.target = target
        let bytes = target.utf8.span
        // One pass over the path, byte by byte: this runs for every request.
        var ranges: [Range<Int>] = []
        var open: Int?
        var percentInName = false
        var index = 0
        while true {
            let byte = index < bytes.count ? bytes[index] : UInt8(ascii: "?")
            if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") {
                if let open, !percentInName, index - 1 > open + 1, bytes[index - 1] == UInt8(ascii: ")") {
                    ranges.append(open + 1..<index - 1)
                }
                if byte == UInt8(ascii: "?") { break }
                (open, percentInName) = (nil, false)
            } else if open == nil {
                if byte == UInt8(ascii: "(") { open = index } else if byte == UInt8(ascii: "%") { percentInName = true }
            }
            index += 1
        }
        keyRanges = ranges
    }

    /// `info`, the parse of another target of this shape, with this target's keys; nil when one
    /// of them is not a valid key, which the caller's full parse then reports.
    @usableFromInline func rekeying(_ info: UriInfo) -> UriInfo? {
        var next = 0
        let rekeyed = info.replacingKeys { type in
            guard next < keyRanges.count else { return nil }
            defer { next += 1 }
            return key(in: keyRanges[next], of: type)
        }
        return next == keyRanges.count ? rekeyed : nil
    }

    /// The key of `type` in the predicate at `range`, or nil when it is not one.
    private func key(in range: Range<Int>, of type: EntityType) -> [EDMValue]? {
        let utf8 = target.utf8
        let start = utf8.index(utf8.startIndex, offsetBy: range.lowerBound)
        let raw = Substring(utf8[start..<utf8.index(start, offsetBy: range.count)])
        // Plain integers straight from the target's bytes: making the text a string first cost
        // about 650 instructions per key.
        let keys = type.keyProperties
        if keys.count == 1, let value = KeyPredicateParser.plainInteger(raw.utf8, of: keys[0].type) { return [value] }
        // The segment an error message names is left out: the full parse reports errors.
        return try? KeyPredicateParser.parse(Substring(PercentDecoding.decode(raw, plusAsSpace: false)), for: type, segment: "")
    }

    @usableFromInline static func == (left: TargetShape, right: TargetShape) -> Bool {
        guard left.keyRanges.count == right.keyRanges.count else { return false }
        let (a, b) = (left.target.utf8.span, right.target.utf8.span)
        for index in 0...left.keyRanges.count {
            let (gapA, gapB) = (left.gap(index, count: a.count), right.gap(index, count: b.count))
            guard gapA.count == gapB.count else { return false }
            for offset in 0..<gapA.count where a[gapA.lowerBound + offset] != b[gapB.lowerBound + offset] { return false }
        }
        return true
    }

    @usableFromInline func hash(into hasher: inout Hasher) {
        hasher.combine(keyRanges.count)
        // Each gap by its fingerprint, which reads it a word at a time; equal shapes still
        // compare their bytes.
        let bytes = target.utf8.span
        for index in 0...keyRanges.count {
            hasher.combine(TargetFingerprint.of(bytes.extracting(gap(index, count: bytes.count))))
        }
    }

    /// The part of the target before key predicate `index` and after the one before it (the
    /// last part follows the last predicate), in a target of `count` bytes.
    private func gap(_ index: Int, count: Int) -> Range<Int> {
        let start = index == 0 ? 0 : keyRanges[index - 1].upperBound
        let end = index == keyRanges.count ? count : keyRanges[index].lowerBound
        return start..<end
    }
}
