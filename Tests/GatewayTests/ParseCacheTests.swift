import EDM
import Foundation
import ODataURI
import Testing

/// The per-thread cache of parsed targets: repeats skip the parse, failures are not kept, and
/// it never holds more than its capacity.
@Suite struct ParseCacheTests {
    static let model = try! ModelLoader.load(contentsOf: TestGateway.carDealerSchema)
    let parser = UriParser(model: ParseCacheTests.model)

    private func parse(_ target: String) throws(URIError) -> UriInfo {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return try parser.parse(path: parts[0], query: parts.count > 1 ? parts[1] : "")
    }

    @Test func aRepeatedTargetIsParsedOnce() throws {
        let cache = ParseCache<Void>()
        var parses = 0
        let target = "Person?$filter=lastName eq 'Samson'&$top=2"
        for _ in 0..<3 {
            let info = try cache.info(for: target) { () throws(URIError) in
                parses += 1
                return try parse(target)
            }
            #expect(info.options.top == 2)
            #expect(info.options.filter != nil)
        }
        #expect(parses == 1)
    }

    @Test func aFailedParseIsNotKept() throws {
        let cache = ParseCache<Void>()
        let target = "Person?$top=x"
        #expect(throws: URIError.self) { try cache.info(for: target) { () throws(URIError) in try parse(target) } }
        #expect(cache.count == 0)
        var parsed = false
        _ = try cache.info(for: target) { () throws(URIError) in
            parsed = true
            return try parse("Person")
        }
        #expect(parsed, "the failure was not served from the cache")
    }

    @Test func longTargetsAreNotKept() throws {
        let cache = ParseCache<Void>(longestTarget: 64)
        let long = "Person?$filter=" + Array(repeating: "personID eq 1", count: 8).joined(separator: " or ")
        _ = try cache.info(for: long) { () throws(URIError) in try parse(long) }
        #expect(cache.count == 0)
        _ = try cache.info(for: "Person(1)") { () throws(URIError) in try parse("Person(1)") }
        #expect(cache.count == 1)
    }

    @Test func itStaysWithinItsCapacity() throws {
        let cache = ParseCache<Void>(capacity: 8)
        // Fifty shapes: each evicts one other when the shapes are full.
        for top in 1...50 {
            let target = "Person?$top=\(top)"
            let info = try cache.info(for: target) { () throws(URIError) in try parse(target) }
            #expect(info.options.top == top)
            #expect(cache.shapeCount <= 8)
            #expect(cache.count <= 8)
        }
        #expect(cache.shapeCount == 8, "full, not started over")
        var parsed = false
        _ = try cache.info(for: "Person?$top=50") { () throws(URIError) in
            parsed = true
            return try parse("Person?$top=50")
        }
        #expect(!parsed, "the newest target is kept")
    }

    /// `Person(8)` after `Person(7)`: one parse, with each target's own key.
    @Test func targetsThatDifferInTheirKeysShareAParse() throws {
        let cache = ParseCache<Void>()
        var parses = 0
        for key in [7, 8, 1000, 8] {
            let target = "Person(\(key))/PersonCar?$top=2"
            let info = try cache.info(for: target) { () throws(URIError) in
                parses += 1
                return try parse(target)
            }
            guard case .entityCollection(let path) = info.resource else { Issue.record("\(target) is not a collection"); return }
            #expect(path.segments[0].key == [.integer(Int64(key))], "\(target)")
            #expect(info.options.top == 2)
        }
        #expect(parses == 1)
        #expect(cache.shapeCount == 1)
        #expect(cache.count == 3, "each target kept, for repeats")
    }

    /// Every key of a path, the target of `$links` too, comes from the request, in any literal form.
    @Test func everyKeyOfThePathIsTheRequests() throws {
        let cache = ParseCache<Void>()
        _ = try cache.info(for: "Person(1)/$links/PersonCar(2)") { () throws(URIError) in try parse("Person(1)/$links/PersonCar(2)") }
        let info = try cache.info(for: "Person(personID=3)/$links/PersonCar(%34)") { () throws(URIError) in
            Issue.record("parsed again")
            return try parse("Person(personID=3)/$links/PersonCar(%34)")
        }
        guard case .links(let source, _, let targetKey) = info.resource else { Issue.record("not links"); return }
        #expect(source.segments[0].key == [.integer(3)])
        #expect(targetKey == [.integer(4)])

        _ = try cache.info(for: "PersonCar(1)/Car/PersonCar(5)") { () throws(URIError) in try parse("PersonCar(1)/Car/PersonCar(5)") }
        let nested = try cache.info(for: "PersonCar(9)/Car/PersonCar(10)") { () throws(URIError) in
            Issue.record("parsed again")
            return try parse("PersonCar(9)/Car/PersonCar(10)")
        }
        guard case .entity(let path) = nested.resource else { Issue.record("not an entity"); return }
        #expect(path.segments.map(\.key) == [[.integer(9)], nil, [.integer(10)]])
    }

    /// `Person()` addresses the set: it is not `Person(1)` with another key. Nor is a segment
    /// whose name is percent-encoded, which may decode to a parenthesis of its own.
    @Test func onlyKeyPredicatesAreLeftOutOfTheShape() throws {
        let cache = ParseCache<Void>()
        _ = try cache.info(for: "Person(1)") { () throws(URIError) in try parse("Person(1)") }
        let set = try cache.info(for: "Person()") { () throws(URIError) in try parse("Person()") }
        guard case .entityCollection = set.resource else { Issue.record("Person() is not the set"); return }
        _ = try cache.info(for: "Pers%6Fn(2)") { () throws(URIError) in try parse("Pers%6Fn(2)") }
        #expect(cache.shapeCount == 3)
    }

    /// Integer keys in every form the literal grammar allows keep their values.
    @Test func integerKeysKeepTheirValues() throws {
        let cache = ParseCache<Void>()
        for (text, value) in [("1", 1), ("007", 7), ("8L", 8), ("2147483647", 2147483647), ("personID=9", 9)] {
            let info = try cache.info(for: "Person(\(text))") { () throws(URIError) in try parse("Person(\(text))") }
            guard case .entity(let path) = info.resource else { Issue.record("Person(\(text)) is not an entity"); return }
            #expect(path.segments[0].key == [.integer(Int64(value))], "Person(\(text))")
        }
        #expect(cache.shapeCount == 1)
        // MS-ODATA's sign is "-" or nothing: a plus is refused in a kept shape as by the parser.
        #expect(throws: URIError.self) { try cache.info(for: "Person(+8)") { () throws(URIError) in try parse("Person(+8)") } }
        #expect(throws: URIError.self) { try parse("Person(+8)") }
    }

    /// A new key parsed into a kept shape skips the parser's own checks of the whole target, so
    /// the service keeps no target longer than the parser accepts: a longer one, of a kept
    /// shape, still gets the parser's 400.
    @Test func aTargetOverTheLengthLimitIsRefusedEvenInAKeptShape() throws {
        let gateway = try TestGateway { $0.limits.maxURILength = 40 }
        // Connections are dealt to the two workers in turn: both keep the shape.
        for key in 1...2 { #expect(try gateway.get("Person(\(key))").status == 200) }
        let long = "Person(" + String(repeating: "0", count: 42) + "1)"
        _ = try parse(long)  // the default limit takes it: only its length is wrong
        for _ in 1...2 {
            let response = try gateway.get(long)
            #expect(response.status == 400)
            #expect(response.text.contains("longer than the maximum URI length of 40"), "\(response.text)")
        }
    }

    /// A key that is not one gets the error a full parse gives, and nothing of it is kept.
    @Test func aBadKeyInAKeptShapeIsReportedByTheParser() throws {
        let cache = ParseCache<Void>()
        _ = try cache.info(for: "Person(1)") { () throws(URIError) in try parse("Person(1)") }
        for bad in ["Person('x')", "Person(99999999999)", "Person(1,2)", "Person(lastName=1)", "Person(%ZZ)"] {
            var expected: URIError?
            do { _ = try parse(bad) } catch { expected = error }
            var parsed = false
            do {
                _ = try cache.info(for: bad) { () throws(URIError) in
                    parsed = true
                    return try parse(bad)
                }
                Issue.record("\(bad) was accepted")
            } catch {
                #expect(parsed, "\(bad): the full parse reported it")
                #expect(error == expected, "\(bad)")
            }
        }
        #expect(cache.count == 1)
        #expect(cache.shapeCount == 1)
    }

    /// Targets are looked up by a fingerprint and then by their own bytes: with every target
    /// given one fingerprint, each is still answered with its own parse (they take turns in the
    /// one place), and a repeat of the target in that place is not parsed again.
    @Test func targetsOfOneFingerprintAreToldApartByTheirBytes() throws {
        let cache = ParseCache<Void>(fingerprint: { _ in 42 })
        var parses = 0
        func cached(_ target: String) throws -> UriInfo {
            try cache.info(for: target) { () throws(URIError) in
                parses += 1
                return try parse(target)
            }
        }
        for _ in 0..<3 {
            for key in [1, 2, 12] {
                guard case .entity(let path) = try cached("Person(\(key))").resource else { Issue.record("not an entity"); continue }
                #expect(path.lastKey == [.integer(Int64(key))], "Person(\(key))")
            }
            for top in [2, 3] {
                #expect(try cached("Person?$top=\(top)").options.top == top)
            }
            // Of the same length as the one before it, and differing in a byte.
            #expect(try cached("Person?$top=4").options.top == 4)
        }
        let before = parses
        _ = try cached("Person?$top=4")
        #expect(parses == before, "the target in the place is found without a parse")
        #expect(cache.count == 1)
    }

    /// The server hands the cache a target's bytes as received: one seen before is found by
    /// them alone, and its String, which only a parse needs, is not made again.
    @Test func aTargetSeenBeforeIsFoundByItsBytesWithoutItsText() throws {
        let cache = ParseCache<Void>()
        var texts = 0
        var parses = 0
        func cached(_ target: String) throws -> UriInfo {
            let bytes = Array(target.utf8)
            return try cache.entry(for: bytes.span, text: { texts += 1; return target }, parse: { () throws(URIError) in
                parses += 1
                return try parse(target)
            }, derive: { _ in }).info
        }
        for _ in 0..<3 {
            #expect(try cached("Person?$top=3").options.top == 3)
            #expect(try cached("Person?$top=5").options.top == 5)
        }
        #expect(texts == 2, "each target's text was made once, for its first lookup")
        #expect(parses == 2, "each target was parsed once")
    }

    /// Bytes that are not UTF-8 are refused every time, never parsed as their repaired text; the
    /// target whose bytes are that text is still parsed and kept. Long targets, which are not
    /// kept, are checked too.
    @Test func bytesThatAreNotUTF8AreRefused() throws {
        for cache in [ParseCache<Void>(), ParseCache<Void>(longestTarget: 8)] {
            let invalid = Array("Person?$filter=lastName eq '".utf8) + [0xFF] + Array("'&$top=1".utf8)
            let repaired = Array("Person?$filter=lastName eq '\u{FFFD}'&$top=2".utf8)
            var parses = 0
            func cached(_ bytes: [UInt8]) throws -> UriInfo {
                let text = String(decoding: bytes, as: UTF8.self)
                return try cache.entry(for: bytes.span, text: { text }, parse: { () throws(URIError) in parses += 1; return try parse(text) },
                                       derive: { _ in }).info
            }
            for _ in 0..<2 {
                #expect(throws: URIError.badRequest("the request target is not valid UTF-8; percent-encode its characters as UTF-8")) {
                    try cached(invalid)
                }
                #expect(try cached(repaired).options.top == 2)
            }
            #expect(parses == (cache.longestTarget == 8 ? 2 : 1), "only the valid target was parsed")
        }
    }

    /// The fingerprints of a client's usual targets differ: the same bytes give the same one,
    /// and a byte, a length or an order changed gives another.
    @Test func fingerprintsOfDifferentTargetsDiffer() {
        var targets = (1...2000).map { "Person(\($0))" } + (1...200).map { "Person?$top=\($0)" }
        targets += ["", "P", "Pe", "Person", "Person(1)?$expand=PersonCar", "Person(1)?$expand=PersonCaR",
                    "ab", "ba", "abcdefgh", "abcdefghi", "bacdefgh", "Caf\u{E9}", "Cafe\u{301}"]
        let fingerprints = targets.map(TargetFingerprint.of)
        #expect(Set(fingerprints).count == targets.count)
        #expect(TargetFingerprint.of("Person(7)") == TargetFingerprint.of(String("xPerson(7)".dropFirst())))
    }
}
