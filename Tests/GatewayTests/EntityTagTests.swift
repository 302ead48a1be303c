import EDM
import ODataStore
import SQLiteStore
import Testing

/// The digest behind every ETag reads columns 8 bytes at a time. Rows that differ only where
/// that reading could blur them (a byte moved from one column to the next, the last byte of a
/// partial word, a trailing zero byte, null against empty text against zero) must still get
/// different tags, and equal rows equal ones.
@Suite struct EntityTagTests {
    private func tag(_ values: [SQLValue]) throws -> String {
        let model = try ModelLoader.load(contentsOf: TestGateway.carDealerSchema)
        let person = try #require(model.entityType(qualifiedName: "edmexampleModel.Person"))
        return EntityTag.of(EntityRecord(type: person, values: values))
    }

    private let bob: [SQLValue] = [.integer(1), .text("Bob"), .text("Samson"), .text("543872934"), .integer(1_257_008_908_440)]

    @Test func equalRowsHaveEqualTags() throws {
        let first = try tag(bob)
        #expect(first == (try tag(bob)))
        #expect(first.hasPrefix("W/\"") && first.hasSuffix("\"") && first.utf8.count == 20)
    }

    @Test func rowsThatDifferAtTheEdgesOfAWordHaveDifferentTags() throws {
        func with(_ column: Int, _ value: SQLValue) -> [SQLValue] {
            var row = bob
            row[column] = value
            return row
        }
        var shiftedByte = bob
        shiftedByte[1] = .text("Bo")
        shiftedByte[2] = .text("bSamson")
        let rows: [[SQLValue]] = [
            bob,
            shiftedByte,
            with(3, .text("543872935")),   // the last byte, alone in the second word
            with(3, .text("54387293")),    // exactly one word
            with(3, .text("543872934\u{0}")),  // a trailing zero byte
            with(3, .text("")),
            with(3, .null),
            with(3, .integer(0)),
            with(2, .text("Samsom")),      // the last byte of 4 to 7
            with(2, .text("Sbmson")),      // a byte that only the first of two 4-byte loads holds
            with(1, .text("Bop")),         // the last byte of 1 to 3
            with(1, .text("Bxb")),         // the middle one
            with(1, .text("B")),
            with(3, .text("5438729345438729")),   // two whole words
            with(3, .text("5438729345438728")),
            with(3, .text("54387293454387291")),  // and a byte that only the overlapping load holds
            with(0, .integer(2)),
            with(4, .integer(1_257_008_908_441)),
            with(4, .real(1_257_008_908_440)),
        ]
        let tags = try rows.map(tag)
        #expect(Set(tags).count == rows.count, "\(tags)")
    }
}
