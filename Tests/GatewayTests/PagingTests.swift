import EDM
import Foundation
import ODataStore
import SQLiteStore
import Testing

/// Server-driven paging: `__next` links walk a large set, every row exactly once, with
/// `$top`, `$inlinecount` and navigation collections.
@Suite struct PagingTests {
    static func makeGateway(_ engine: TestGateway.Engine) throws -> TestGateway {
        let gateway = try TestGateway(engine: engine) { $0.defaultPageSize = 100 }
        // 2,500 more people, with repeated last names so that ordering has ties to break.
        let database = try gateway.openConnection()
        let person = try #require(gateway.model.entitySet(named: "Person")).entityType
        let inserter = RowInserter(connection: database)
        try database.transaction {
            for n in 0..<2500 {
                try inserter.insert(person, columns: [nil, .text("First\(n)"), .text("Last\(n % 37)"), .null, .integer(1_300_000_000_000 + Int64(n))])
            }
        }
        return gateway
    }

    /// Follows `__next` from `target`; returns every entity's key and the number of pages.
    private func walk(_ gateway: TestGateway, _ target: String, key: String = "personID") throws -> (keys: [Int], pages: Int, counts: [String]) {
        var keys: [Int] = []
        var counts: [String] = []
        var next: String? = target
        var pages = 0
        while let current = next {
            let response = try gateway.get(current)
            #expect(response.status == 200, "\(current): \(response.text.prefix(200))")
            pages += 1
            let d = try response.d()
            if let object = d as? [String: Any] {
                keys += (object["results"] as! [[String: Any]]).map { $0[key] as! Int }
                if let count = object["__count"] as? String { counts.append(count) }
                next = (object["__next"] as? String).map { String($0.dropFirst(gateway.root.count)) }
            } else {
                keys += (d as! [[String: Any]]).map { $0[key] as! Int }
                next = nil
            }
            if pages > 1000 { break }
        }
        return (keys, pages, counts)
    }

    @Test(arguments: TestGateway.engines) func everyRowExactlyOnce(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let (keys, pages, _) = try walk(gateway, "Person")
        #expect(keys == Array(1...2560))
        #expect(pages == 26)
    }

    @Test(arguments: TestGateway.engines) func nextLinksKeepTheQueryAndUseAKeysetToken(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let first = try gateway.get("Person?$inlinecount=allpages&custom=kept").d() as! [String: Any]
        let next = try #require(first["__next"] as? String)
        #expect(next.hasPrefix(gateway.root + "Person?"))
        #expect(next.contains("$inlinecount=allpages"))
        #expect(next.contains("custom=kept"))
        #expect(next.contains("$skiptoken=100"), "the token is the last key, not an offset: \(next)")
        let (keys, _, counts) = try walk(gateway, "Person?$inlinecount=allpages")
        #expect(keys.count == 2560)
        #expect(Set(counts) == ["2560"], "every page counts all pages")
    }

    @Test(arguments: TestGateway.engines) func topAcrossPages(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let (keys, pages, _) = try walk(gateway, "Person?$top=250&$skip=10")
        #expect(keys == Array(11...260))
        #expect(pages == 3)
        let exact = try walk(gateway, "Person?$top=100")
        #expect(exact.pages == 1, "a $top that fits the page is not cut")
    }

    @Test(arguments: TestGateway.engines) func navigationCollectionsPageToo(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        let (keys, _, _) = try walk(gateway, "Car(2)/PersonCar", key: "personCarID")
        #expect(!keys.isEmpty)
        #expect(keys == keys.sorted())
    }

    @Test(arguments: TestGateway.engines) func aTamperedTokenIsABadRequest(engine: TestGateway.Engine) throws {
        let gateway = try Self.makeGateway(engine)
        #expect(try gateway.get("Person?$skiptoken='x").status == 400)
        #expect(try gateway.get("Person?$skiptoken=1,2,3").status == 400)
        #expect(try gateway.get("Person?$skiptoken=").status == 400)
    }
}
