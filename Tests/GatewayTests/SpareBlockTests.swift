#if canImport(Glibc)
import Glibc
#endif
import ODataSerialization
import Testing

/// A page is written into a block of 8 KiB that its thread keeps for the next page once the
/// page's document is let go (`SpareBlock`): a document still alive must never be written over,
/// and one let go must leave its block to the next.
@Suite struct SpareBlockTests {
    /// A page-sized writer holding `byte` repeated.
    private static func document(of byte: UInt8, count: Int = 6_000) -> SerializedBytes {
        var json = JSONWriter(capacity: 8192)
        json.appendVerbatim([UInt8](repeating: byte, count: count))
        return json.serialized()
    }

    @Test func aDocumentStillAliveKeepsItsBlock() {
        let first = Self.document(of: UInt8(ascii: "a"))
        let second = Self.document(of: UInt8(ascii: "b"))
        let third = Self.document(of: UInt8(ascii: "c"))
        #expect(first.bytes.baseAddress != second.bytes.baseAddress)
        #expect(second.bytes.baseAddress != third.bytes.baseAddress)
        #expect(first.bytes.baseAddress != third.bytes.baseAddress)
        #expect(first.array == [UInt8](repeating: UInt8(ascii: "a"), count: 6_000))
        #expect(second.array == [UInt8](repeating: UInt8(ascii: "b"), count: 6_000))
        #expect(third.array == [UInt8](repeating: UInt8(ascii: "c"), count: 6_000))
    }

    /// Kept for the thread's next page, not returned to malloc: an allocation of the same size
    /// in between (which malloc would serve from a block just freed) does not get it.
    @Test func theBlockOfADocumentLetGoIsTheNextPagesOnTheSameThread() throws {
        var first: SerializedBytes? = Self.document(of: UInt8(ascii: "a"))
        let block = first?.bytes.baseAddress
        first = nil
        let other = try #require(malloc(8192))
        defer { free(other) }
        #expect(UnsafeRawPointer(other) != block.map(UnsafeRawPointer.init))
        let next = Self.document(of: UInt8(ascii: "b"))
        #expect(next.bytes.baseAddress == block)
        #expect(next.array == [UInt8](repeating: UInt8(ascii: "b"), count: 6_000))
    }

    /// A page that outgrows its block moves to a larger one and keeps what it wrote; the next
    /// page is written apart from it.
    @Test func aPageThatOutgrowsItsBlockKeepsWhatItWrote() {
        let large = Self.document(of: UInt8(ascii: "x"), count: 20_000)
        let next = Self.document(of: UInt8(ascii: "y"))
        #expect(large.array == [UInt8](repeating: UInt8(ascii: "x"), count: 20_000))
        #expect(next.array == [UInt8](repeating: UInt8(ascii: "y"), count: 6_000))
        #expect(large.bytes.baseAddress != next.bytes.baseAddress)
    }
}
