import ODataSerialization
import Testing

/// The number writers emit digits straight into the buffer (two at a time for decimals, one
/// table load per hexadecimal digit): each must agree with the standard library's formatting.
@Suite struct JSONWriterTests {
    @Test(arguments: [0, 7, 9, 10, 99, 100, 101, 999, 1_000, 65_535, 1_257_008_908_440, 999_999_999_999_999_999,
                      1_000_000_000_000_000_000, Int64.max, -1, -10, -100, -1_257_008_908_440, Int64.min] as [Int64])
    func integersAsTheStandardLibraryWritesThem(value: Int64) {
        var json = JSONWriter(capacity: 1)
        json.integer(value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
    }

    /// Where the digit count changes: each power of ten and the number just below it.
    @Test(arguments: (1...18).flatMap { exponent -> [Int64] in
        let power = (0..<exponent).reduce(Int64(1)) { power, _ in power * 10 }
        return [power - 1, power, -power, -(power - 1)]
    })
    func integersAtEachPowerOfTen(value: Int64) {
        var json = JSONWriter(capacity: 1)
        json.integer(value)
        #expect(String(decoding: json.bytes, as: UTF8.self) == String(value))
    }

    @Test(arguments: [0, 1, 0xF, 0x10, 0xDEAD_BEEF, 0x0123_4567_89AB_CDEF, UInt64.max] as [UInt64])
    func sixteenHexadecimalDigits(value: UInt64) {
        var json = JSONWriter(capacity: 1)
        json.raw("x")
        json.hexadecimal(value)
        let hex = String(value, radix: 16)
        #expect(String(decoding: json.bytes, as: UTF8.self) == "x" + String(repeating: "0", count: 16 - hex.count) + hex)
    }
}
