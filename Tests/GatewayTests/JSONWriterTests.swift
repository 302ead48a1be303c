import EDM
import ODataSerialization
import ODataStore
import SQLiteStore
import Testing

/// The number writers emit digits straight into the buffer (two at a time for decimals, one
/// word of eight hexadecimal digits at a time): each must agree with the standard library's formatting.
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

    @Test(arguments: [0, 1, 0x9, 0xA, 0xF, 0x10, 0x9A, 0xDEAD_BEEF, 0x0123_4567_89AB_CDEF, 0xFEDC_BA98_7654_3210,
                      0x9999_9999_AAAA_AAAA, 0x1_0000_0000, UInt64.max] as [UInt64])
    func sixteenHexadecimalDigits(value: UInt64) {
        var json = JSONWriter(capacity: 1)
        json.raw("x")
        json.hexadecimal(value)
        let hex = String(value, radix: 16)
        #expect(String(decoding: json.bytes, as: UTF8.self) == "x" + String(repeating: "0", count: 16 - hex.count) + hex)
    }

    /// Appends of up to 16 bytes are copied with word loads and stores that overlap each other:
    /// every length from none to well past that, after every offset in the buffer, must come out
    /// exactly.
    @Test func appendsOfEveryLengthCopyExactly() {
        let source = (0..<40).map { UInt8(65 + $0) }
        for length in 0...source.count {
            for offset in 0..<9 {
                var json = JSONWriter(capacity: 1)
                let lead = [UInt8](repeating: UInt8(ascii: "."), count: offset)
                lead.withUnsafeBufferPointer { json.appendVerbatim($0) }
                source.withUnsafeBufferPointer { json.appendVerbatim(UnsafeBufferPointer(rebasing: $0[0..<length])) }
                #expect(json.bytes == lead + source[0..<length], "length \(length) after \(offset)")
            }
        }
    }

    /// The bytes handed over without a copy are exactly what was written: after growing from a
    /// small capacity, and without the part of the room kept for a prefix that was not used.
    @Test(arguments: [0, 5, 16, 32])
    func serializedBytesAreWhatWasWritten(prefixRoom: Int) {
        var json = prefixRoom == 0 ? JSONWriter(capacity: 1) : JSONWriter(capacity: 1, reservingPrefix: prefixRoom)
        let text = (0..<300).map { _ in "[\"a\",1]," }.joined()
        json.raw("[")
        json.appendVerbatim(Array(text.utf8))
        json.raw("]")
        if prefixRoom >= 5 { json.prepend("{\"d\":") }
        let expected = Array(((prefixRoom >= 5 ? "{\"d\":" : "") + "[" + text + "]").utf8)
        #expect(json.bytes == expected)
        let serialized = json.serialized()
        #expect(serialized.array == expected)
        #expect(serialized.bytes.count == expected.count)
    }
}

/// Escaping looks at eight bytes at a time, and at the bytes after the last whole word with loads
/// that overlap, byte by byte only where one of them holds a byte to escape: every byte value, at
/// every place of texts shorter and longer than a word, must come out as the byte-by-byte rules
/// of RFC 8259 say.
@Suite struct JSONEscapingTests {
    /// What the escaper must write for `byte`, the rules spelled out one byte at a time.
    private static func expected(_ byte: UInt8) -> [UInt8] {
        switch byte {
        case UInt8(ascii: "\""): Array("\\\"".utf8)
        case UInt8(ascii: "\\"): Array("\\\\".utf8)
        case 0x0A: Array("\\n".utf8)
        case 0x0D: Array("\\r".utf8)
        case 0x09: Array("\\t".utf8)
        case 0x08: Array("\\b".utf8)
        case 0x0C: Array("\\f".utf8)
        case ..<0x20: Array(("\\u00" + (byte < 0x10 ? "0" : "") + String(byte, radix: 16)).utf8)
        default: [byte]
        }
    }

    private static func escaped(_ bytes: [UInt8]) -> [UInt8] {
        var json = JSONWriter(capacity: 1)
        bytes.withUnsafeBufferPointer { json.appendEscaped($0) }
        return json.bytes
    }

    @Test func everyByteAtEveryPlaceOfUpToThreeWords() {
        // 1 to 24 bytes: no whole word, one or more, with tails of every length, and the byte
        // under test at each place.
        let letters = Array("abcdefghijklmnopqrstuvwx".utf8)
        for length in 1...letters.count {
            for byte in UInt8.min...UInt8.max {
                for place in 0..<length {
                    var text = Array(letters[0..<length])
                    text[place] = byte
                    let want = text.flatMap(Self.expected)
                    #expect(Self.escaped(text) == want, "byte \(byte) at \(place) of \(length)")
                }
            }
        }
    }

    /// Bytes that sit next to the ones to escape in value (0x1F and 0x20, 0x21 and 0x23, 0x5B
    /// and 0x5D) and UTF-8 continuation bytes, which the word test must not mistake for them.
    @Test func neighboursAndMultibyteTextPassThrough() {
        let text = Array("\u{1F}\u{20}!#[]€ü日本語テキスト😀".utf8)
        #expect(Self.escaped(text) == text.flatMap(Self.expected))
        let plain = Array(" !#[]€ü日本語テキスト😀~\u{7F}".utf8)
        #expect(Self.escaped(plain) == plain)
    }

    @Test func runsOfEscapesAndEmptyText() {
        #expect(Self.escaped([]) == [])
        let quotes = [UInt8](repeating: UInt8(ascii: "\""), count: 20)
        #expect(Self.escaped(quotes) == quotes.flatMap(Self.expected))
        let controls = Array(UInt8(0)...UInt8(0x1F)) + Array(UInt8(0)...UInt8(0x1F))
        #expect(Self.escaped(controls) == controls.flatMap(Self.expected))
    }
}

/// `storedColumn` writes the kinds of bounded size (null, numbers, booleans, dates, text of up
/// to 30 bytes that needs no escape) into room reserved once, without a check per byte, and
/// hands the rest to the checked writer. Every length on both sides of that cut, with and
/// without a byte to escape, must come out as `string` writes the same text; and the bounded
/// kinds at their widest must fit the room (debug builds stop at a write beyond it).
@Suite struct StoredColumnTests {
    private static func written(_ column: StoredColumn, type: PrimitiveType, after lead: Int = 0) -> String {
        var json = JSONWriter(capacity: 1)
        for _ in 0..<lead { json.byte(UInt8(ascii: ".")) }
        json.storedColumn(column, type: type)
        return String(decoding: json.bytes.dropFirst(lead), as: UTF8.self)
    }

    private static func asString(_ text: String) -> String {
        var json = JSONWriter(capacity: 1)
        json.string(text)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test(arguments: [PrimitiveType.string, .guid, .decimal])
    func textOfEveryLengthAroundTheBoundedCut(type: PrimitiveType) {
        let letters = Array("abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH".utf8)
        for length in 0...letters.count {
            var variants = [Array(letters[0..<length])]
            for place in 0..<length {
                for byte in [UInt8(ascii: "\""), UInt8(ascii: "\\"), 0x0A, 0x01, 0x1F] {
                    var text = Array(letters[0..<length])
                    text[place] = byte
                    variants.append(text)
                }
            }
            for text in variants {
                let expected = Self.asString(String(decoding: text, as: UTF8.self))
                for lead in [0, 5] {
                    let actual = text.withUnsafeBufferPointer { Self.written(.text($0), type: type, after: lead) }
                    #expect(actual == expected, "\(type) text of \(length) bytes after \(lead): \(text)")
                }
            }
        }
    }

    @Test func multibyteTextPassesAsItIs() {
        for text in ["€", "ü日本語", "テキスト😀", "日本語テキスト日本語テキスト", "€€€€€€€€€€"] {
            let utf8 = Array(text.utf8)
            #expect(utf8.withUnsafeBufferPointer { Self.written(.text($0), type: .string) } == "\"" + text + "\"")
        }
    }

    /// The widest value of each bounded kind, in a writer that has to grow for it.
    @Test func boundedKindsAtTheirWidest() {
        #expect(Self.written(.null, type: .string) == "null")
        #expect(Self.written(.null, type: .dateTime) == "null")
        #expect(Self.written(.integer(1), type: .boolean) == "true")
        #expect(Self.written(.integer(0), type: .boolean) == "false")
        #expect(Self.written(.integer(-2_147_483_648), type: .int32) == "-2147483648")
        #expect(Self.written(.integer(-32_768), type: .int16) == "-32768")
        #expect(Self.written(.integer(-128), type: .sByte) == "-128")
        #expect(Self.written(.integer(255), type: .byte) == "255")
        #expect(Self.written(.integer(Int64.min), type: .int64) == "\"-9223372036854775808\"")
        #expect(Self.written(.integer(Int64.max), type: .int64) == "\"9223372036854775807\"")
        // 32 bytes, the whole room: `"\/Date(` and `)\/"` around a sign and 19 digits.
        let widestDate = Self.written(.integer(Int64.min), type: .dateTime, after: 3)
        #expect(widestDate == "\"\\/Date(-9223372036854775808)\\/\"")
        #expect(widestDate.utf8.count == 32)
        #expect(Self.written(.integer(-62_135_596_800_000), type: .dateTime) == "\"\\/Date(-62135596800000)\\/\"")
    }
}
