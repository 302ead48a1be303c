import Testing

/// The header fields of successful reads, as WCF Data Services sends them: every JSON answer
/// says it must not be cached or sniffed, names its DataServiceVersion, and an entity carries its
/// ETag. JSON answers share one header list per version, the ETag kept apart (`ODataService.ok`,
/// `HTTPResponse.etag`); these requests go through the real server, one after another on fresh
/// connections, so that a list shared by mistake with another answer's fields would show.
@Suite struct ResponseHeaderTests {
    @Test(arguments: TestGateway.engines) func everyJSONReadIsMarkedNoCacheAndNoSniff(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        let targets = [
            "Person(1)", "Person", "Person?$top=2", "Person?$inlinecount=allpages&$top=2", "Person(1)/PersonCar",
            "Person(1)?$expand=PersonCar", "Person(1)/firstName",
        ]
        for target in targets {
            let response = try gateway.get(target)
            #expect(response.status == 200, "\(target): \(response.text)")
            #expect(response.header("Content-Type") == "application/json;charset=utf-8", "\(target)")
            #expect(response.header("Cache-Control") == "no-cache", "\(target)")
            #expect(response.header("X-Content-Type-Options") == "nosniff", "\(target)")
        }
    }

    @Test(arguments: TestGateway.engines) func collectionsNameTheirVersionAndCarryNoETag(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        // In turn, so that a version-2 answer between two version-1 ones would leave a trace.
        let expectations = [
            ("Person?$top=2", "1.0;"), ("Person?$inlinecount=allpages&$top=2", "2.0;"),
            ("Person?$top=2", "1.0;"), ("Person?$select=firstName&$top=1", "2.0;"), ("Person(1)/PersonCar", "1.0;"),
        ]
        for (target, version) in expectations {
            let response = try gateway.get(target)
            #expect(response.status == 200, "\(target): \(response.text)")
            #expect(response.header("DataServiceVersion") == version, "\(target)")
            #expect(response.header("ETag") == nil, "\(target): a collection has no single ETag")
        }
    }

    @Test(arguments: TestGateway.engines) func anEntityAfterACollectionStillGetsItsETag(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        _ = try gateway.get("Person?$top=2")
        let entity = try gateway.get("Person(1)")
        let tag = try #require(entity.header("ETag"))
        #expect(tag.hasPrefix("W/\""))
        #expect(entity.header("DataServiceVersion") == "1.0;")
        #expect(entity.header("X-Content-Type-Options") == "nosniff")
        // A collection read after it gets no ETag of its own from the entity's answer.
        #expect(try gateway.get("Person?$top=2").header("ETag") == nil)
    }
}
