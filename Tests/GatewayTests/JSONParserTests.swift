import Testing
@testable import ODataSerialization

@Suite("JSONParser")
struct JSONParserTests {
    // MARK: Accepted documents

    @Test func parsesEveryKindOfValue() throws {
        let value = try JSONParser.parse(#"{"a": null, "b": true, "c": false, "d": -12.5e3, "e": "x", "f": [1, [], {}]}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.names == ["a", "b", "c", "d", "e", "f"])
        #expect(object["a"] == .null)
        #expect(object["b"] == .bool(true))
        #expect(object["c"] == .bool(false))
        #expect(object["d"] == .number(JSONNumber(literal: "-12.5e3")))
        #expect(object["e"] == .string("x"))
        #expect(object["f"] == .array([.number(JSONNumber(literal: "1")), .array([]), .object(JSONObject([]))]))
    }

    @Test func keepsMemberOrderAsWritten() throws {
        let value = try JSONParser.parse(#"{"z": 1, "a": 2, "m": 3}"#)
        guard case .object(let object) = value else { Issue.record("not an object"); return }
        #expect(object.names == ["z", "a", "m"])
    }

    @Test func keepsNumberLiteralsExactly() throws {
        let big = "9223372036854775807"
        let decimal = "79228162514264337593543950335.0000000001"
        let value = try JSONParser.parse("[\(big), \(decimal), 9223372036854775808]")
        guard case .array(let elements) = value, case .number(let a) = elements[0], case .number(let b) = elements[1],
              case .number(let c) = elements[2] else { Issue.record("unexpected shape"); return }
        #expect(a.int64Value == Int64.max)
        #expect(a.literal == big)
        #expect(b.literal == decimal)
        #expect(b.int64Value == nil)
        #expect(c.int64Value == nil, "one past Int64.max does not fit")
        #expect(c.literal == "9223372036854775808")
    }

    static let strings: [(json: String, expected: String)] = [
        (#""plain""#, "plain"),
        (#""\"\\\/\b\f\n\r\t""#, "\"\\/\u{08}\u{0C}\n\r\t"),
        (#""\u00e9\u00E9""#, "éé"),
        (#""\ud83d\ude00""#, "😀"),
        ("\"é中😀\"", "é中😀"),
        (#""\/Date(1257076800000)\/""#, "/Date(1257076800000)/"),
        (#""""#, ""),
    ]

    @Test(arguments: strings)
    func decodesStrings(json: String, expected: String) throws {
        #expect(try JSONParser.parse(json) == .string(expected))
    }

    @Test func acceptsScalarsAtTopLevelAndSurroundingWhitespace() throws {
        #expect(try JSONParser.parse(" \t\r\n 42 \n") == .number(JSONNumber(literal: "42")))
        #expect(try JSONParser.parse("null") == .null)
    }

    @Test func skipsALeadingByteOrderMark() throws {
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("{}".utf8)) == .object(JSONObject([])))
    }

    @Test func acceptsNestingUpToTheLimit() throws {
        let deep = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try JSONParser.parse(deep)
    }

    // MARK: Rejected documents

    static let malformed: [(json: String, offset: Int, fragment: String)] = [
        ("", 0, "empty"),
        ("   ", 3, "empty"),
        ("{", 1, "end of input"),
        (#"{"a" 1}"#, 5, "expected ':'"),
        (#"{"a": 1,}"#, 8, "member name"),
        ("[1, 2,]", 6, "expected a value"),
        ("[1 2]", 3, "expected ',' or ']'"),
        (#"{"a": 1 "b": 2}"#, 8, "expected ',' or '}'"),
        ("{a: 1}", 1, "member name in double quotes"),
        ("{'a': 1}", 1, "member name in double quotes"),
        ("01", 0, "leading zeros"),
        ("-", 1, "expected a digit"),
        ("1.", 2, "after the decimal point"),
        ("1e", 2, "exponent"),
        (".5", 0, "expected a value"),
        ("+1", 0, "expected a value"),
        ("NaN", 0, "expected a value"),
        ("Infinity", 0, "expected a value"),
        ("tru", 0, "expected true"),
        ("nul", 0, "expected null"),
        ("{} x", 3, "after the end of the JSON value"),
        ("{}{}", 2, "after the end of the JSON value"),
        ("\"abc", 0, "unterminated string"),
        ("\"a\tb\"", 2, "control character"),
        ("\"a\nb\"", 2, "control character"),
        (#""\x""#, 1, "invalid escape"),
        (#""\u12G4""#, 5, "hex digit"),
        (#""\ud83d""#, 1, "not followed by a low surrogate"),
        (#""\ud83d\u0041""#, 1, "not a low surrogate"),
        (#""\ude00""#, 1, "lone low surrogate"),
        (#"{"a": 1, "a": 2}"#, 9, "duplicate member name \"a\""),
        ("/* comment */ 1", 0, "expected a value"),
    ]

    @Test(arguments: malformed)
    func rejectsMalformedJSON(json: String, offset: Int, fragment: String) {
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(json) }
        #expect(error?.kind == .syntax)
        #expect(error?.offset == offset, "offset for \(json)")
        #expect(error?.message.contains(fragment) == true, "message '\(error?.message ?? "")' should contain '\(fragment)'")
        #expect(error?.description.hasPrefix("malformed JSON at byte \(offset)") == true)
    }

    @Test func rejectsNestingBeyondTheLimit() {
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(deep) }
        #expect(error?.message.contains("deeper than 64") == true)
        #expect(error?.offset == 64)
        let shallowLimit = #expect(throws: JSONParseError.self) { try JSONParser.parse("[[[1]]]", maximumDepth: 2) }
        #expect(shallowLimit?.offset == 2)
    }

    static let invalidUTF8: [(bytes: [UInt8], offset: Int)] = [
        ([0x22, 0xFF, 0x22], 1),                    // never valid
        ([0x22, 0x80, 0x22], 1),                    // lone continuation byte
        ([0x22, 0xC3, 0x22], 2),                    // truncated two-byte sequence
        ([0x22, 0xC0, 0xAF, 0x22], 1),              // overlong "/"
        ([0x22, 0xE0, 0x80, 0xAF, 0x22], 2),        // overlong three-byte form
        ([0x22, 0xED, 0xA0, 0x80, 0x22], 2),        // encoded surrogate U+D800
        ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 2),  // above U+10FFFF
        ([0x7B, 0x7D, 0xE2, 0x82], 2),              // truncated at the end, outside a string
    ]

    @Test(arguments: invalidUTF8)
    func rejectsInvalidUTF8(bytes: [UInt8], offset: Int) {
        let error = #expect(throws: JSONParseError.self) { try JSONParser.parse(bytes) }
        #expect(error?.kind == .invalidUTF8)
        #expect(error?.offset == offset)
        #expect(error?.description.hasPrefix("invalid UTF-8 at byte \(offset)") == true)
    }
}
