import Foundation
import ODataStore
import PostgresStore
import SQLiteStore
import Testing

/// Edm.Decimal is exact on both engines: SQLite's registered decimal functions and collation,
/// and PostgreSQL's NUMERIC as the dialect writes it, against Swift's `Decimal` on random
/// values; and the gateway's `$filter`, `$orderby`, skip tokens and read-back text on values a
/// double cannot tell apart.
@Suite struct DecimalExactnessTests {
    /// A random decimal of up to 29 significant digits, at a random scale and sign.
    private static func randomDecimal(_ random: inout SystemRandomNumberGenerator) -> String {
        let digits = Int.random(in: 1...29, using: &random)
        var text = String((0..<digits).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        let scale = Int.random(in: 0...min(digits, 12), using: &random)
        if scale > 0 { text.insert(".", at: text.index(text.endIndex, offsetBy: -scale)) }
        if text.hasPrefix(".") { text = "0" + text }
        return (Bool.random(using: &random) ? "-" : "") + text
    }

    private static func rounded(_ value: Decimal, scale: Int) -> Decimal {
        var (input, result) = (value, Decimal())
        NSDecimalRound(&result, &input, scale, .plain)
        return result
    }

    @Test func arithmeticAndComparisonAgreeWithSwiftsDecimal() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("decimal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = try Database(path: folder.appendingPathComponent("d.sqlite").path)
        try database.configureForService()
        let sql = "SELECT edm_dec_add(?1, ?2), edm_dec_sub(?1, ?2), edm_dec_mul(?1, ?2), edm_dec_div(?1, ?2), "
            + "?1 < ?2 COLLATE EDM_DECIMAL, ?1 = ?2 COLLATE EDM_DECIMAL, edm_dec(?3), edm_dec_mod(?1, ?2)"
        var random = SystemRandomNumberGenerator()
        let posix = Locale(identifier: "en_US_POSIX")
        for round in 0..<3000 {
            let a = Self.randomDecimal(&random)
            // Now and then equal values written differently, to exercise equality.
            let b = round % 10 == 0 ? a + (a.contains(".") ? "00" : ".0") : Self.randomDecimal(&random)
            let integer = Int64.random(in: Int64.min...Int64.max, using: &random)
            let row = try database.rows(sql, [.text(a), .text(b), .integer(integer)])[0]
            let x = Decimal(string: a, locale: posix)!, y = Decimal(string: b, locale: posix)!
            func decimal(_ value: SQLValue) -> Decimal? {
                guard case .text(let text) = value else { return nil }
                return Decimal(string: text, locale: posix)
            }
            #expect(decimal(row[0]) == x + y, "\(a) add \(b)")
            #expect(decimal(row[1]) == x - y, "\(a) sub \(b)")
            #expect(decimal(row[2]) == x * y, "\(a) mul \(b)")
            if y.isZero {
                #expect(row[3] == .null && row[7] == .null, "\(a) div 0")
            } else {
                let quotient = Self.rounded(x / y, scale: 28)
                #expect(decimal(row[3]) == quotient, "\(a) div \(b)")
                #expect(decimal(row[7]) == Self.remainder(x, y), "\(a) mod \(b)")
            }
            #expect(row[4] == .integer(x < y ? 1 : 0), "\(a) lt \(b)")
            #expect(row[5] == .integer(x == y ? 1 : 0), "\(a) eq \(b)")
            #expect(row[6] == .text(String(integer)), "Int64 \(integer) as a decimal")
            if round % 10 == 1 {
                let c = Self.randomDecimal(&random)
                let sum = try database.rows("SELECT edm_dec_sum(x) FROM (SELECT ?1 AS x UNION ALL SELECT ?2 UNION ALL SELECT NULL UNION ALL SELECT ?3)",
                                            [.text(a), .text(b), .text(c)])[0][0]
                #expect(decimal(sum) == x + y + Decimal(string: c, locale: posix)!, "sum of \(a), \(b), \(c)")
            }
        }
        #expect(try database.rows("SELECT edm_dec_sum(x) FROM (SELECT 1 AS x) WHERE x = 2")[0][0] == .null, "no rows, no sum")
    }

    /// `x mod y` as OData's `mod` takes it: the remainder of the quotient truncated toward zero.
    static func remainder(_ x: Decimal, _ y: Decimal) -> Decimal {
        var whole = x / y, truncated = Decimal()
        whole = whole < 0 ? -whole : whole
        NSDecimalRound(&truncated, &whole, 0, .down)
        return x - y * (x / y < 0 ? -truncated : truncated)
    }

    /// PostgreSQL's decimal SQL (`PostgresDialect.exactDecimal`) on random values: the same
    /// results as Swift's `Decimal` (so as SQLite's functions), on operands small enough that
    /// no exact product or sum needs more than Decimal's 38 digits.
    @Test(PostgresTestDatabase.enabled) func postgresArithmeticAndComparisonAgreeWithSwiftsDecimal() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let dialect = PostgresDialect()
        let exact = try #require(dialect.exactDecimal)
        let a = dialect.parameter("$1", of: .decimal), b = dialect.parameter("$2", of: .decimal)
        let sql = "SELECT " + [exact.arithmetic(.add, a, b), exact.arithmetic(.subtract, a, b), exact.arithmetic(.multiply, a, b),
                               exact.arithmetic(.divide, a, b), "(" + a + " < " + b + exact.collation + ")",
                               "(" + a + " = " + b + exact.collation + ")", exact.convert("CAST($3 AS BIGINT)"),
                               exact.arithmetic(.modulo, a, b), exact.round(a), exact.convert("CAST($4 AS DOUBLE PRECISION)"),
                               "round(CAST($1 AS NUMERIC(1000, 60)) / CAST(NULLIF($2, '0') AS NUMERIC), 28)"]
            .joined(separator: ", ")
        var random = SystemRandomNumberGenerator()
        let posix = Locale(identifier: "en_US_POSIX")
        func decimal(_ value: SQLValue) -> Decimal? {
            guard case .text(let text) = value else { return nil }
            return Decimal(string: text, locale: posix)
        }
        for round in 0..<1000 {
            let a = String(Self.randomDecimal(&random).prefix(19))
            let b = round % 10 == 0 ? a + (a.contains(".") ? "00" : ".0") : String(Self.randomDecimal(&random).prefix(19))
            guard !a.hasSuffix("."), !b.hasSuffix("."), !a.hasSuffix("-"), !b.hasSuffix("-") else { continue }
            let integer = Int64.random(in: Int64.min...Int64.max, using: &random)
            let row = try connection.rows(sql, [.text(a), .text(b), .integer(integer), .real(0.1 + 0.2)])[0]
            let x = Decimal(string: a, locale: posix)!, y = Decimal(string: b, locale: posix)!
            #expect(decimal(row[0]) == x + y, "\(a) add \(b)")
            #expect(decimal(row[1]) == x - y, "\(a) sub \(b)")
            #expect(decimal(row[2]) == x * y, "\(a) mul \(b)")
            if y.isZero {
                #expect(row[3] == .null && row[7] == .null, "\(a) div 0")
            } else {
                // Foundation's quotient keeps at most 38 significant digits and its last place
                // may be off, so the exact one is NUMERIC's own division carried to 60 places
                // and rounded to 28 (half away from zero), which the dialect's must equal.
                #expect(row[3] == row[10], "\(a) div \(b)")
                #expect(decimal(row[3]).map { Self.rounded($0, scale: 20) } == Self.rounded(x / y, scale: 20), "\(a) div \(b)")
                #expect(decimal(row[7]) == Self.remainder(x, y), "\(a) mod \(b)")
            }
            #expect(row[4] == .integer(x < y ? 1 : 0), "\(a) lt \(b)")
            #expect(row[5] == .integer(x == y ? 1 : 0), "\(a) eq \(b)")
            #expect(row[6] == .text(String(integer)), "Int64 \(integer) as a decimal")
            #expect(decimal(row[8]) == Self.roundedAwayFromZero(x), "round(\(a))")
            #expect(row[9] == .text("0.30000000000000004"), "a double as a decimal by its shortest text, as edm_dec")
        }
    }

    private static func roundedAwayFromZero(_ value: Decimal) -> Decimal {
        var (input, result) = (value, Decimal())
        NSDecimalRound(&result, &input, 0, .plain)
        return result
    }

    /// A decimal reads back as its canonical text on both engines: no zeros from a column's scale.
    @Test(arguments: TestGateway.engines) func decimalsReadBackAsTheSameText(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Literals.edmx"), seed: nil)
        for (written, read) in [("10.00", "10"), ("0.50", "0.5"), ("-3.10", "-3.1"), ("100", "100"), ("0.000", "0")] {
            let created = try gateway.send("POST", "Decimals", json: ["Id": written, "Label": written])
            #expect(created.status == 201, "\(written): \(created.text.prefix(300))")
            let response = try gateway.get(TestGateway.encodeQuery("Decimals?$filter=Label eq '\(written)'"))
            #expect(try ExpressionHTTPTests.page(response).entities.map { $0["Id"] as? String } == [read], "\(written) on \(engine)")
        }
    }

    @Test(arguments: TestGateway.engines) func int64BeyondTwoToThe53IsComparedExactly(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Literals.edmx"), seed: nil)
        for id in ["9007199254740992", "9007199254740993", "-9223372036854775808", "9223372036854775807"] {
            #expect(try gateway.send("POST", "Int64s", json: ["Id": id, "Label": id]).status == 201)
        }
        for (filter, expected) in [("Id eq 9007199254740992M", ["9007199254740992"]),
                                   ("Id eq 9007199254740993.0M", ["9007199254740993"]),
                                   ("Id gt 9007199254740992.5M", ["9007199254740993", "9223372036854775807"]),
                                   ("Id lt -9223372036854775807.9M", ["-9223372036854775808"]),
                                   ("Id add 0.5M eq 9223372036854775807.5M", ["9223372036854775807"])] {
            let response = try gateway.get(TestGateway.encodeQuery("Int64s?$filter=\(filter)"))
            #expect(response.status == 200, "\(filter): \(response.text.prefix(300))")
            let ids = try ExpressionHTTPTests.page(response).entities.map { $0["Id"] as! String }
            #expect(ids.sorted() == expected.sorted(), "\(filter)")
        }
    }

    @Test(arguments: TestGateway.engines) func precision29OrdersFiltersAndPagesExactly(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Literals.edmx"), seed: nil) { $0.defaultPageSize = 1 }
        let ids = ["1234567890123456789012345.6701", "1234567890123456789012345.6702", "1234567890123456789012345.6703", "-0.2", "0.3"]
        for id in ids { #expect(try gateway.send("POST", "Decimals", json: ["Id": id, "Label": id]).status == 201) }
        let ascending = ids.sorted { Decimal(string: $0)! < Decimal(string: $1)! }
        for (order, expected) in [("Id", ascending), ("Id desc", Array(ascending.reversed()))] {
            var target: String? = TestGateway.encodeQuery("Decimals?$orderby=\(order)")
            var seen: [String] = []
            while let next = target, seen.count <= ids.count {
                let page = try ExpressionHTTPTests.page(try gateway.get(next))
                seen += page.entities.map { $0["Id"] as! String }
                if let link = page.next {
                    #expect(!link.contains("e%2B") && !link.contains("e+"), "the skip token keeps the decimal exact: \(link)")
                    target = String(link.dropFirst(gateway.root.count))
                } else {
                    target = nil
                }
            }
            #expect(seen == expected, "$orderby=\(order) on \(engine)")
        }
        let whole = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Literals.edmx"), seed: nil)
        for id in ids { #expect(try whole.send("POST", "Decimals", json: ["Id": id, "Label": id]).status == 201) }
        for (filter, expected) in [("Id eq 1234567890123456789012345.6701M", [ids[0]]),
                                   ("Id sub 0.0001M eq 1234567890123456789012345.6702M", [ids[2]]),
                                   ("Id add 0.2M eq 0.5M", [ids[4]]),
                                   ("Id mul 10 eq -2M", [ids[3]]),
                                   ("Id div 3M gt 0.0999M and Id lt 1M", [ids[4]])] {
            let response = try whole.get(TestGateway.encodeQuery("Decimals?$filter=\(filter)"))
            #expect(response.status == 200, "\(filter): \(response.text.prefix(300))")
            #expect(try ExpressionHTTPTests.page(response).entities.map { $0["Id"] as! String } == expected, "\(filter)")
        }
    }
}
