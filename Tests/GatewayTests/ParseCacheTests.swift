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
        for key in 1...50 {
            let target = "Person(\(key))"
            let info = try cache.info(for: target) { () throws(URIError) in try parse(target) }
            guard case .entity = info.resource else { Issue.record("Person(\(key)) is not an entity"); return }
            #expect(cache.count <= 8)
        }
        #expect(cache.count == 8, "full, not started over")
        var parsed = false
        _ = try cache.info(for: "Person(50)") { () throws(URIError) in
            parsed = true
            return try parse("Person(50)")
        }
        #expect(!parsed, "the newest target is kept")
    }
}
