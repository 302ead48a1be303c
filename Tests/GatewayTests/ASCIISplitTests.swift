import ODataURI
import Testing

/// `splitASCII` and `trimmingSpaces` work on bytes; they must split and trim exactly as the
/// Character-level standard library calls they replaced, non-ASCII text included.
@Suite struct ASCIISplitTests {
    @Test(arguments: ["", ",", "a", "a,b", ",a,,b,", "PersonCar,PersonCar/Car", "Zoë,日本,é", "ab,  cd ,e"])
    func splitsLikeTheStandardLibrary(text: String) {
        let expected = text.split(separator: ",", omittingEmptySubsequences: false)
        #expect(text.splitASCII(",") == expected)
        // A slice that does not start at the text's start.
        let slice = ("x/" + text).dropFirst(2)
        #expect(slice.splitASCII(",") == expected.map { Substring($0) })
    }

    @Test(arguments: ["", " ", "  a ", "a", " é b  ", "日本 "])
    func trimsLikeDroppingSpaces(text: String) {
        var expected = Substring(text)
        while expected.first == " " { expected = expected.dropFirst() }
        while expected.last == " " { expected = expected.dropLast() }
        #expect(Substring(text).trimmingSpaces == expected)
    }
}
