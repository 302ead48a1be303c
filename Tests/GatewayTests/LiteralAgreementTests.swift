import EDM
import Foundation
import ODataURI
import Testing

/// One literal grammar for the three places a URI holds literals: a key predicate `Set(...)`, a
/// `$skiptoken`, and `$filter`. Every form of every EDM type goes through all three (and through
/// the parse cache's fast path for keys) and must come out as the same value or the same 400.
@Suite struct LiteralAgreementTests {
    static let model = try! ModelLoader.load(contentsOf: TestGateway.fixtures.appendingPathComponent("Literals.edmx"))
    let parser = UriParser(model: LiteralAgreementTests.model)

    /// What a literal is, for a key of a type.
    enum Outcome: CustomStringConvertible {
        /// The value it stands for, in all three places.
        case value(EDMValue)
        /// Not a literal at all: 400 in all three places.
        case malformed
        /// A literal of another type that a key of this type cannot hold (400 as a key and in
        /// a skip token). `$filter` types a literal by its form and compares it after numeric
        /// promotion: `Int32Key eq 5.5` compares in Double, which is `filterCompares`.
        case wrongType(filterCompares: Bool)

        var description: String {
            switch self {
            case .value(let value): return "\(value)"
            case .malformed: return "malformed"
            case .wrongType(let compares): return "wrong type (filter \(compares ? "compares" : "refuses"))"
            }
        }
    }

    static let ms20091101: Int64 = 1_257_033_600_000

    /// Entity set, literal, outcome.
    static let cases: [(set: String, literal: String, outcome: Outcome)] = [
        // Edm.Boolean: true and false only; `1`/`0` are Int32 literals, as in $filter.
        ("Booleans", "true", .value(.boolean(true))),
        ("Booleans", "false", .value(.boolean(false))),
        ("Booleans", "1", .wrongType(filterCompares: false)),
        ("Booleans", "True", .malformed),
        // Integers: any integer literal whose value the key's range holds, with or without L.
        ("Bytes", "0", .value(.integer(0))),
        ("Bytes", "255", .value(.integer(255))),
        ("Bytes", "256", .wrongType(filterCompares: true)),
        ("Bytes", "-1", .wrongType(filterCompares: true)),
        ("SBytes", "-128", .value(.integer(-128))),
        ("SBytes", "128", .wrongType(filterCompares: true)),
        ("Int16s", "-32768", .value(.integer(-32768))),
        ("Int16s", "5L", .value(.integer(5))),
        ("Int16s", "32768", .wrongType(filterCompares: true)),
        ("Int32s", "0", .value(.integer(0))),
        ("Int32s", "007", .value(.integer(7))),
        ("Int32s", "-2147483648", .value(.integer(-2_147_483_648))),
        ("Int32s", "2147483647", .value(.integer(2_147_483_647))),
        ("Int32s", "5L", .value(.integer(5))),
        ("Int32s", "5l", .value(.integer(5))),
        ("Int32s", "2147483648", .wrongType(filterCompares: true)),
        ("Int32s", "5.0", .wrongType(filterCompares: true)),
        ("Int32s", "+5", .malformed),
        ("Int32s", "12abc", .malformed),
        ("Int32s", "0x10", .malformed),
        ("Int32s", "1e999", .malformed),
        ("Int32s", "5 6", .malformed),
        ("Int64s", "9223372036854775807L", .value(.integer(Int64.max))),
        ("Int64s", "-9223372036854775808L", .value(.integer(Int64.min))),
        ("Int64s", "9223372036854775807", .value(.integer(Int64.max))),
        ("Int64s", "42", .value(.integer(42))),
        ("Int64s", "9223372036854775808", .wrongType(filterCompares: true)),
        ("Int64s", "9223372036854775808L", .malformed),
        ("Int64s", "1.5L", .malformed),
        // Floating point: the digits as written; INF but no NaN (the store has none).
        ("Doubles", "1.5", .value(.double(1.5))),
        ("Doubles", "1.5d", .value(.double(1.5))),
        ("Doubles", "1.5D", .value(.double(1.5))),
        ("Doubles", "2", .value(.double(2))),
        ("Doubles", "1E2", .value(.double(100))),
        ("Doubles", "-2.5e+2d", .value(.double(-250))),
        ("Doubles", "1.500000E+00", .value(.double(1.5))),  // pyodata's spelling
        ("Doubles", "1e-05d", .value(.double(1e-05))),
        ("Doubles", "0.1f", .value(.double(0.1))),
        ("Doubles", "1.5M", .value(.double(1.5))),
        ("Doubles", "INF", .value(.double(.infinity))),
        ("Doubles", "-INF", .value(.double(-.infinity))),
        ("Doubles", "INFd", .value(.double(.infinity))),
        ("Doubles", "NaN", .malformed),
        ("Doubles", ".5", .malformed),
        ("Doubles", "5.", .malformed),
        ("Doubles", "1.5x", .malformed),
        ("Singles", "1.5f", .value(.double(1.5))),
        ("Singles", "0.1F", .value(.double(0.1))),
        ("Singles", "1.5", .value(.double(1.5))),
        ("Singles", "3e38f", .value(.double(3e38))),
        ("Singles", "INFf", .value(.double(.infinity))),
        ("Singles", "1e39f", .malformed),
        // Edm.Decimal: exact digits, canonical text.
        ("Decimals", "1.5M", .value(.decimal("1.5"))),
        ("Decimals", "1.50m", .value(.decimal("1.5"))),
        ("Decimals", "-0.25M", .value(.decimal("-0.25"))),
        ("Decimals", "0012M", .value(.decimal("12"))),
        ("Decimals", "1.5", .value(.decimal("1.5"))),
        ("Decimals", "1", .value(.decimal("1"))),
        ("Decimals", "1E2", .value(.decimal("100"))),
        ("Decimals", "1E2M", .value(.decimal("100"))),
        ("Decimals", "79228162514264337593543950335M", .value(.decimal("79228162514264337593543950335"))),
        ("Decimals", "12345678901234567890123456789012345678901234567890.5M",
         .value(.decimal("12345678901234567890123456789012345678901234567890.5"))),
        ("Decimals", "INF", .wrongType(filterCompares: true)),
        ("Decimals", "1.5L", .malformed),
        // Edm.String: single quotes, a quote doubled inside.
        ("Strings", "'abc'", .value(.string("abc"))),
        ("Strings", "''", .value(.string(""))),
        ("Strings", "'it''s'", .value(.string("it's"))),
        ("Strings", "''''", .value(.string("'"))),
        ("Strings", "'a,b'", .value(.string("a,b"))),
        ("Strings", "'a b/c(d)'", .value(.string("a b/c(d)"))),
        ("Strings", "'Zoë 日本'", .value(.string("Zoë 日本"))),
        ("Strings", "'x'' or ''1''=''1'", .value(.string("x' or '1'='1"))),
        ("Strings", "'abc", .malformed),
        ("Strings", "'a'b'", .malformed),
        ("Strings", "abc", .malformed),
        ("Strings", "5", .wrongType(filterCompares: false)),
        // Edm.Guid.
        ("Guids", "guid'6F9619FF-8B86-D011-B42D-00C04FC964FF'", .value(.guid("6f9619ff-8b86-d011-b42d-00c04fc964ff"))),
        ("Guids", "GUID'6f9619ff-8b86-d011-b42d-00c04fc964ff'", .value(.guid("6f9619ff-8b86-d011-b42d-00c04fc964ff"))),
        ("Guids", "guid'123'", .malformed),
        ("Guids", "guid'6F9619FF8B86D011B42D00C04FC964FF'", .malformed),
        ("Guids", "'6f9619ff-8b86-d011-b42d-00c04fc964ff'", .wrongType(filterCompares: false)),
        // Edm.DateTime: seconds and fraction optional, Z allowed, a bare date is midnight;
        // digits beyond milliseconds must be zero.
        ("DateTimes", "datetime'2009-11-01T00:00'", .value(.dateTime(ms20091101))),
        ("DateTimes", "datetime'2009-11-01T00:00:05'", .value(.dateTime(ms20091101 + 5000))),
        ("DateTimes", "datetime'2009-11-01T00:00:05.1'", .value(.dateTime(ms20091101 + 5100))),
        ("DateTimes", "datetime'2009-11-01T00:00:05.123'", .value(.dateTime(ms20091101 + 5123))),
        ("DateTimes", "datetime'2009-11-01T00:00:05.123000'", .value(.dateTime(ms20091101 + 5123))),  // pyodata
        ("DateTimes", "datetime'2009-11-01T00:00:05.1230000Z'", .value(.dateTime(ms20091101 + 5123))),  // .NET
        ("DateTimes", "datetime'2009-11-01T00:00:00Z'", .value(.dateTime(ms20091101))),
        ("DateTimes", "datetime'2009-11-01'", .value(.dateTime(ms20091101))),
        ("DateTimes", "DateTime'2009-11-01T00:00'", .value(.dateTime(ms20091101))),
        ("DateTimes", "datetime'1969-12-31T23:59:59.999'", .value(.dateTime(-1))),
        ("DateTimes", "datetime'0001-01-01T00:00'", .value(.dateTime(-62_135_596_800_000))),
        ("DateTimes", "datetime'9999-12-31T23:59:59.999'", .value(.dateTime(253_402_300_799_999))),
        ("DateTimes", "datetime'2009-11-01T00:00:00.0001'", .malformed),
        ("DateTimes", "datetime'2009-11-01T00:00:00.1234567Z'", .malformed),
        ("DateTimes", "datetime'2009-11-01T00:00:00.12345678'", .malformed),
        ("DateTimes", "datetime'2009-11-01T00:00:00.'", .malformed),
        ("DateTimes", "datetime'2009-11-01T00:00:00+01:00'", .malformed),
        ("DateTimes", "datetime'2009-02-29T00:00'", .malformed),
        ("DateTimes", "datetime'2009-11-01T24:00'", .malformed),
        ("DateTimes", "datetime'2009-11-01 00:00'", .malformed),
        ("DateTimes", "datetime'2009-11-1T00:00'", .malformed),
        ("DateTimes", "datetime'2009-11-01Z'", .malformed),
        ("DateTimes", "datetimeoffset'2009-11-01T00:00:00Z'", .wrongType(filterCompares: false)),
        ("DateTimes", "1257033600000L", .wrongType(filterCompares: false)),
        // Edm.DateTimeOffset: the offset is required.
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T02:00:00+02:00'", .value(.dateTimeOffset(ms20091101, offsetMinutes: 120))),
        ("DateTimeOffsets", "datetimeoffset'2009-10-31T19:30-04:30'", .value(.dateTimeOffset(ms20091101, offsetMinutes: -270))),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T00:00:00.5Z'", .value(.dateTimeOffset(ms20091101 + 500, offsetMinutes: 0))),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T14:00:00+14:00'", .value(.dateTimeOffset(ms20091101, offsetMinutes: 840))),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T00:00:00'", .malformed),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01'", .malformed),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T00:00:00+15:00'", .malformed),
        ("DateTimeOffsets", "datetimeoffset'2009-11-01T00:00:00.0001Z'", .malformed),
        ("DateTimeOffsets", "datetime'2009-11-01T00:00'", .wrongType(filterCompares: false)),
        // Edm.Time: an xsd:dayTimeDuration, or a time of day.
        ("Times", "time'PT13H20M'", .value(.time(48_000_000))),
        ("Times", "time'PT0S'", .value(.time(0))),
        ("Times", "time'PT1.5S'", .value(.time(1500))),
        ("Times", "time'P1DT2H'", .value(.time(93_600_000))),
        ("Times", "time'-PT1M'", .value(.time(-60_000))),
        ("Times", "time'13:20'", .value(.time(48_000_000))),
        ("Times", "time'01:02:03.004'", .value(.time(3_723_004))),
        ("Times", "TIME'PT1H'", .value(.time(3_600_000))),
        ("Times", "time'PT1.0001S'", .malformed),
        ("Times", "time'PT1.5H'", .malformed),
        ("Times", "time'P1Y'", .malformed),
        ("Times", "time'PT'", .malformed),
        ("Times", "time'25:00'", .malformed),
        ("Times", "'PT1H'", .wrongType(filterCompares: false)),
        // Edm.Binary: X'…' or binary'…', pairs of hexadecimal digits.
        ("Binaries", "X'0aFF'", .value(.binary([0x0A, 0xFF]))),
        ("Binaries", "x'00'", .value(.binary([0]))),
        ("Binaries", "binary'CAFE'", .value(.binary([0xCA, 0xFE]))),
        ("Binaries", "BINARY'CAFE'", .value(.binary([0xCA, 0xFE]))),
        ("Binaries", "X''", .value(.binary([]))),
        ("Binaries", "X'abc'", .malformed),
        ("Binaries", "X'zz'", .malformed),
        ("Binaries", "'CAFE'", .wrongType(filterCompares: false)),
        // Not a literal anywhere.
        ("Strings", "foo'bar'", .malformed),
        ("Int32s", "-", .malformed),
    ]

    @Test(arguments: cases)
    func aLiteralReadsTheSameInAKeyASkipTokenAndAFilter(_ testCase: (set: String, literal: String, outcome: Outcome)) throws {
        let (set, literal) = (testCase.set, testCase.literal)
        let encoded = TestGateway.percentEncoded(literal)
        let key = Result { () throws(URIError) in try keyValue(of: parse("\(set)(\(encoded))")) }
        let token = Result { () throws(URIError) in try parse("\(set)?$skiptoken=\(encoded)").options.skipToken }
        let filter = Result { () throws(URIError) in try parse("\(set)?$filter=" + TestGateway.percentEncoded("Id eq \(literal)")).options.filter }
        let cached = try keyThroughAKeptShape(set, encoded)
        let context = "\(set): \(literal), expected \(testCase.outcome)"

        switch testCase.outcome {
        case .value(let expected):
            #expect(try key.get() == [expected], "key; \(context)")
            #expect(try token.get() == [expected], "skip token; \(context)")
            #expect(try cached.get() == [expected], "kept shape; \(context)")
            guard case .comparison(.equal, _, .literal(let value, _))? = try filter.get() else {
                Issue.record("$filter bound to \(String(describing: try? filter.get())); \(context)")
                return
            }
            #expect(value == expected, "$filter; \(context)")
        case .malformed:
            for (use, result) in [("key", key.map { _ in () }), ("skip token", token.map { _ in () }),
                                  ("kept shape", cached.map { _ in () }), ("$filter", filter.map { _ in () })] {
                guard case .failure(let error) = result else { Issue.record("\(use) accepted it; \(context)"); continue }
                #expect(error.kind == .badRequest, "\(use): \(error.message); \(context)")
            }
        case .wrongType(let filterCompares):
            for (use, result) in [("key", key.map { _ in () }), ("skip token", token.map { _ in () }), ("kept shape", cached.map { _ in () })] {
                guard case .failure(let error) = result else { Issue.record("\(use) accepted it; \(context)"); continue }
                #expect(error.kind == .badRequest, "\(use): \(error.message); \(context)")
            }
            switch filter {
            case .success: #expect(filterCompares, "$filter accepted it; \(context)")
            case .failure(let error):
                #expect(!filterCompares, "$filter: \(error.message); \(context)")
                #expect(error.kind == .badRequest, "$filter: \(error.message); \(context)")
            }
        }
    }

    /// Spaces around a key's literal are not part of it; `$filter` skips them between tokens.
    @Test func aKeyLiteralHasNoSurroundingSpaces() {
        for key in ["%205", "5%20", "%20'a'"] {
            #expect(throws: URIError.self, "Int32s(\(key))") { try parse("Int32s(\(key))") }
        }
    }

    /// `null` is a literal, but no key value: a key and a skip token's key refuse it, while
    /// `$filter` compares with it.
    @Test func nullIsNoKey() throws {
        #expect(throws: URIError.self) { try parse("Int32s(null)") }
        #expect(throws: URIError.self) { try parse("Int32s?$skiptoken=null") }
        #expect(try parse("Int32s?$filter=" + TestGateway.percentEncoded("Id eq null")).options.filter != nil)
    }

    /// Errors say what is wrong with the literal wherever it stands.
    @Test func errorsGiveTheReason() {
        let fraction = "datetime'2009-11-01T00:00:00.0001'"
        for target in ["DateTimes(\(fraction))", "DateTimes?$skiptoken=\(fraction)", "DateTimes?$filter=Id eq \(fraction)"] {
            do {
                _ = try parse(TestGateway.encodeQuery(target))
                Issue.record("\(target) was accepted")
            } catch {
                #expect(error.message.contains("more precise than the milliseconds this service stores"), "\(target): \(error.message)")
            }
        }
    }

    // MARK: Round trip

    /// Values of every type, edge values included, as the store gives them back.
    static let values: [(set: String, value: EDMValue)] = [
        ("Booleans", .boolean(true)), ("Booleans", .boolean(false)),
        ("Bytes", .integer(0)), ("Bytes", .integer(255)),
        ("SBytes", .integer(-128)), ("SBytes", .integer(127)),
        ("Int16s", .integer(-32768)), ("Int16s", .integer(32767)),
        ("Int32s", .integer(Int64(Int32.min))), ("Int32s", .integer(0)), ("Int32s", .integer(Int64(Int32.max))),
        ("Int64s", .integer(Int64.min)), ("Int64s", .integer(Int64.max)),
        ("Doubles", .double(1.5)), ("Doubles", .double(0.1)), ("Doubles", .double(-0.0)), ("Doubles", .double(1e-05)),
        ("Doubles", .double(1e300)), ("Doubles", .double(.leastNonzeroMagnitude)), ("Doubles", .double(.greatestFiniteMagnitude)),
        ("Doubles", .double(.infinity)), ("Doubles", .double(-.infinity)),
        ("Singles", .double(0.1)), ("Singles", .double(1.5)), ("Singles", .double(Double(Float.greatestFiniteMagnitude))),
        ("Singles", .double(.infinity)),
        ("Decimals", .decimal("1.5")), ("Decimals", .decimal("-0.25")), ("Decimals", .decimal("0.0000001")),
        ("Decimals", .decimal("79228162514264337593543950335")), ("Decimals", .decimal("12")),
        ("Strings", .string("")), ("Strings", .string("it's")), ("Strings", .string("a,b")), ("Strings", .string("''")),
        ("Strings", .string("Zoë 日本 / (x) & y=z + %")), ("Strings", .string("x' or '1'='1")),
        ("Guids", .guid("6f9619ff-8b86-d011-b42d-00c04fc964ff")), ("Guids", .guid("00000000-0000-0000-0000-000000000000")),
        ("DateTimes", .dateTime(0)), ("DateTimes", .dateTime(ms20091101 + 5123)), ("DateTimes", .dateTime(-1)),
        ("DateTimes", .dateTime(-62_135_596_800_000)), ("DateTimes", .dateTime(253_402_300_799_999)),
        ("DateTimeOffsets", .dateTimeOffset(ms20091101, offsetMinutes: 0)), ("DateTimeOffsets", .dateTimeOffset(ms20091101 + 1, offsetMinutes: 120)),
        ("DateTimeOffsets", .dateTimeOffset(ms20091101, offsetMinutes: -270)), ("DateTimeOffsets", .dateTimeOffset(ms20091101, offsetMinutes: 840)),
        ("Times", .time(0)), ("Times", .time(48_000_000)), ("Times", .time(1)), ("Times", .time(1500)),
        ("Times", .time(-60_000)), ("Times", .time(86_399_999)), ("Times", .time(360_000_000_000)),
        ("Binaries", .binary([])), ("Binaries", .binary([0x0A, 0xFF])), ("Binaries", .binary([0])),
    ]

    /// Every key the service writes (`__metadata.uri`, `Location`) and every skip token of its
    /// next links parses back to the value it was written from.
    @Test(arguments: values)
    func whatTheServiceWritesReadsBack(_ testCase: (set: String, value: EDMValue)) throws {
        let type = Self.model.entitySet(named: testCase.set)!.entityType
        let predicate = LiteralFormatter.keyPredicate([testCase.value], of: type)
        let key = try keyValue(of: parse("\(testCase.set)(\(TestGateway.percentEncoded(predicate)))"))
        #expect(key == [testCase.value], "\(testCase.set)(\(predicate))")
        let token = LiteralFormatter.skipToken([testCase.value])
        #expect(try parse("\(testCase.set)?$skiptoken=\(TestGateway.percentEncoded(token))").options.skipToken == [testCase.value],
                "$skiptoken=\(token)")
        // With an $orderby term, whose value comes in its storage form.
        let ordered = LiteralFormatter.skipToken([.string("label"), testCase.value])
        #expect(try parse("\(testCase.set)?$orderby=Label&$skiptoken=\(TestGateway.percentEncoded(ordered))").options.skipToken
                == [.string("label"), testCase.value], "$skiptoken=\(ordered)")
    }

    /// The same on the real server: entities of every key type, created from JSON, are each
    /// found at the `__metadata.uri` the service writes for them, and a page size of one makes
    /// every next link carry a skip token of that key, which must lead to the next entity.
    @Test func theServersKeysAndNextLinksLeadBackToTheirEntities() throws {
        let gateway = try TestGateway(schema: TestGateway.fixtures.appendingPathComponent("Literals.edmx"), seed: nil) {
            $0.defaultPageSize = 1
        }
        let keys: [(set: String, ids: [Any])] = [
            ("Booleans", [false, true]),
            ("Bytes", [0, 7, 255]), ("SBytes", [-128, 0, 127]), ("Int16s", [-32768, 5, 32767]),
            ("Int32s", [-2_147_483_648, 0, 2_147_483_647]), ("Int64s", ["-9223372036854775808", "0", "9223372036854775807"]),
            ("Doubles", [-1e300, 0.1, 1.5]), ("Singles", [-2.5, 0.1, 3e38]),
            ("Decimals", ["-0.25", "1.5", "79228162514264337593543950335"]),
            ("Strings", ["", "a,b", "it's", "Zoë 日本 / (x) & y=z + %"]),
            ("Guids", ["00000000-0000-0000-0000-000000000001", "6f9619ff-8b86-d011-b42d-00c04fc964ff"]),
            ("DateTimes", ["/Date(-62135596800000)/", "/Date(1257033605123)/", "/Date(253402300799999)/"]),
            ("DateTimeOffsets", ["/Date(1257033600000+0120)/", "/Date(1257033600001-0270)/"]),
            ("Times", ["PT0S", "PT0.001S", "PT13H20M"]),
            ("Binaries", ["", "AAH/", "yv4="]),
        ]
        for (set, ids) in keys {
            var created: [String] = []
            for id in ids {
                let response = try gateway.send("POST", set, json: ["Id": id, "Label": "\(id)"])
                #expect(response.status == 201, "POST \(set) \(id): \(response.text.prefix(300))")
                guard let uri = ((try? response.d() as? [String: Any])?["__metadata"] as? [String: Any])?["uri"] as? String else { continue }
                created.append(uri)
                let read = try gateway.get(String(uri.dropFirst(gateway.root.count)))
                #expect(read.status == 200, "GET \(uri): \(read.text.prefix(300))")
                #expect(((try? read.d() as? [String: Any])?["Label"] as? String) == "\(id)", "GET \(uri)")
            }
            // Keyed by the key alone, and by an $orderby term too, whose value the token
            // carries in its storage form (Binary cannot be ordered).
            for target in [set, set + (set == "Binaries" ? "?$orderby=Label%20desc" : "?$orderby=Id%20desc")] {
                let paged = try pages(from: target, of: gateway, atMost: ids.count + 1)
                #expect(paged.count == ids.count && Set(paged) == Set(created), "\(target): paged \(paged), created \(created)")
            }
        }
    }

    /// The `__metadata.uri` of each entity of `target` and of the pages its next links lead to.
    private func pages(from target: String, of gateway: TestGateway, atMost limit: Int) throws -> [String] {
        var target = target
        var uris: [String] = []
        for _ in 0..<limit {
            let response = try gateway.get(target)
            #expect(response.status == 200, "GET \(target): \(response.text.prefix(400))")
            guard let page = try? response.d() else { break }
            let object = page as? [String: Any]
            let entities = (object?["results"] ?? page) as? [[String: Any]] ?? []
            uris += entities.compactMap { ($0["__metadata"] as? [String: Any])?["uri"] as? String }
            guard let next = object?["__next"] as? String else { break }
            target = String(next.dropFirst(gateway.root.count))
        }
        return uris
    }

    // MARK: Helpers

    private func parse(_ target: String) throws(URIError) -> UriInfo {
        let parts = target.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        return try parser.parse(path: parts[0], query: parts.count > 1 ? parts[1] : "")
    }

    private func keyValue(of info: UriInfo) -> [EDMValue]? {
        guard case .entity(let path) = info.resource else { return nil }
        return path.segments[0].key
    }

    /// The key of `Set(literal)` read on the parse cache's fast path: the cache first keeps a
    /// parse of another key of the same shape, then rekeys it with this target's key.
    private func keyThroughAKeptShape(_ set: String, _ literal: String) throws -> Result<[EDMValue]?, URIError> {
        let cache = ParseCache<Void>()
        let sample = Self.sampleKeys[set]!
        _ = try cache.info(for: "\(set)(\(sample))") { () throws(URIError) in try parse("\(set)(\(sample))") }
        #expect(cache.shapeCount == 1)
        let target = "\(set)(\(literal))"
        return Result { () throws(URIError) in try keyValue(of: cache.info(for: target) { () throws(URIError) in try parse(target) }) }
    }

    static let sampleKeys = [
        "Booleans": "false", "Bytes": "1", "SBytes": "1", "Int16s": "1", "Int32s": "1", "Int64s": "1L", "Doubles": "1d",
        "Singles": "1f", "Decimals": "1M", "Strings": "'sample'", "Guids": "guid'00000000-0000-0000-0000-000000000001'",
        "DateTimes": "datetime'2000-01-01T00:00'", "DateTimeOffsets": "datetimeoffset'2000-01-01T00:00Z'",
        "Times": "time'PT1S'", "Binaries": "X'01'",
    ]
}
