import EDM

/// Parses URI literals (MS-ODATA 2.2.2) against the EDM type they must have, as in key
/// predicates and skip tokens. Errors name the literal and the type it failed to be.
public enum LiteralParser {
    public static func parse(_ text: String, as type: PrimitiveType) throws(URIError) -> EDMValue {
        if text == "null" { return .null }
        func fail() -> URIError { .badRequest("'\(text)' is not a valid \(type.name) literal") }
        switch type {
        case .boolean:
            switch text {
            case "true", "1": return .boolean(true)
            case "false", "0": return .boolean(false)
            default: throw fail()
            }
        case .byte, .sByte, .int16, .int32, .int64:
            var digits = Substring(text)
            if type == .int64, digits.hasSuffix("L") || digits.hasSuffix("l") { digits = digits.dropLast() }
            guard let value = Int64(digits), let range = type.integerRange, range.contains(value) else { throw fail() }
            return .integer(value)
        case .double, .single:
            var body = Substring(text)
            if let last = body.last, "dDfFmM".contains(last) { body = body.dropLast() }
            switch body {
            case "INF": return .double(.infinity)
            case "-INF": return .double(-.infinity)
            case "NaN": return .double(.nan)
            default:
                guard isDecimalNumber(body, allowExponent: true), let value = Double(body) else { throw fail() }
                return .double(value)
            }
        case .decimal:
            var body = Substring(text)
            if let last = body.last, "mM".contains(last) { body = body.dropLast() }
            guard isDecimalNumber(body, allowExponent: false) else { throw fail() }
            return .decimal(canonicalDecimal(body))
        case .string:
            guard let inner = quoted(text, prefix: "") else { throw fail() }
            return .string(inner.replacingOccurrences(of: "''", with: "'"))
        case .guid:
            guard let inner = quoted(text, prefix: "guid"), isGuid(inner) else { throw fail() }
            return .guid(inner.lowercased())
        case .dateTime:
            guard let inner = quoted(text, prefix: "datetime"), let (civil, offset) = parseDateTime(inner),
                  offset == nil else { throw fail() }
            return .dateTime(civil.millisecondsSinceEpoch)
        case .dateTimeOffset:
            guard let inner = quoted(text, prefix: "datetimeoffset"), let (civil, offset) = parseDateTime(inner),
                  let offset else { throw fail() }
            return .dateTimeOffset(civil.millisecondsSinceEpoch - Int64(offset) * 60_000, offsetMinutes: offset)
        case .time:
            guard let inner = quoted(text, prefix: "time"), let ms = parseDuration(inner) else { throw fail() }
            return .time(ms)
        case .binary:
            let inner = quoted(text, prefix: "X") ?? quoted(text, prefix: "binary")
            guard let inner, let bytes = parseHex(inner) else { throw fail() }
            return .binary(bytes)
        }
    }

    /// The text between `prefix'` and the closing `'`, or nil when the literal is not of that form.
    static func quoted(_ text: String, prefix: String) -> String? {
        let lower = text.lowercased()
        guard lower.hasPrefix(prefix.lowercased() + "'"), text.hasSuffix("'"), text.count >= prefix.count + 2 else { return nil }
        let inner = text.dropFirst(prefix.count + 1).dropLast()
        // Inside a string literal a quote must be doubled.
        var pending = false
        for c in inner {
            if c == "'" { pending.toggle() } else if pending { return nil }
        }
        return pending ? nil : String(inner)
    }

    /// `[+-]digits[.digits]`, with `[(e|E)[+-]digits]` when `allowExponent`; `.5` and `5.` count.
    public static func isDecimalNumber(_ text: Substring, allowExponent: Bool) -> Bool {
        var sawDigit = false, sawDot = false, sawExponent = false
        var previous: Character = " "
        for (offset, c) in text.enumerated() {
            switch c {
            case "0"..."9": sawDigit = true
            case "-", "+":
                guard offset == 0 || (previous == "e" || previous == "E") else { return false }
            case ".":
                guard !sawDot, !sawExponent else { return false }
                sawDot = true
            case "e", "E":
                guard allowExponent, sawDigit, !sawExponent else { return false }
                sawExponent = true
                sawDigit = false
            default: return false
            }
            previous = c
        }
        return sawDigit
    }

    /// Strips a leading plus and superfluous zeros so that equal decimals have equal text.
    public static func canonicalDecimal(_ text: Substring) -> String {
        var negative = false
        var body = text
        if body.first == "-" { negative = true; body = body.dropFirst() } else if body.first == "+" { body = body.dropFirst() }
        var integer = String(body.prefix { $0 != "." })
        var fraction = body.contains(".") ? String(body.drop { $0 != "." }.dropFirst()) : ""
        while integer.count > 1 && integer.hasPrefix("0") { integer.removeFirst() }
        if integer.isEmpty { integer = "0" }
        while fraction.hasSuffix("0") { fraction.removeLast() }
        let isZero = integer == "0" && fraction.isEmpty
        return (negative && !isZero ? "-" : "") + integer + (fraction.isEmpty ? "" : "." + fraction)
    }

    /// `dddddddd-dddd-dddd-dddd-dddddddddddd` in ASCII hex digits.
    public static func isGuid(_ text: String) -> Bool {
        let groups = text.split(separator: "-", omittingEmptySubsequences: false)
        guard groups.map(\.count) == [8, 4, 4, 4, 12] else { return false }
        return groups.allSatisfy { $0.allSatisfy { $0.isASCII && $0.isHexDigit } }
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fffffff]]` with an optional `Z` or `±hh:mm` offset.
    public static func parseDateTime(_ text: String) -> (CivilTime, Int?)? {
        let chars = Array(text)
        func number(_ start: Int, _ count: Int) -> Int? {
            guard start + count <= chars.count else { return nil }
            let slice = chars[start..<start + count]
            guard slice.allSatisfy(\.isASCII), slice.allSatisfy(\.isNumber) else { return nil }
            return Int(String(slice))
        }
        guard chars.count >= 16, let year = number(0, 4), chars[4] == "-", let month = number(5, 2), chars[7] == "-",
              let day = number(8, 2), chars[10] == "T" || chars[10] == "t", let hour = number(11, 2), chars[13] == ":",
              let minute = number(14, 2) else { return nil }
        var index = 16
        var second = 0, millisecond = 0
        if index < chars.count, chars[index] == ":" {
            guard let s = number(index + 1, 2) else { return nil }
            second = s
            index += 3
            if index < chars.count, chars[index] == "." {
                index += 1
                var digits = 0
                var fraction = ""
                while index < chars.count, chars[index].isASCII, chars[index].isNumber {
                    if digits < 3 { fraction.append(chars[index]) }
                    digits += 1
                    index += 1
                }
                guard digits > 0, digits <= 7 else { return nil }
                while fraction.count < 3 { fraction += "0" }
                millisecond = Int(fraction) ?? 0
            }
        }
        var offset: Int?
        if index < chars.count {
            if chars[index] == "Z" && index == chars.count - 1 {
                offset = 0
            } else if chars[index] == "+" || chars[index] == "-", index + 6 == chars.count,
                      let h = number(index + 1, 2), chars[index + 3] == ":", let m = number(index + 4, 2), h <= 14, m < 60 {
                offset = (h * 60 + m) * (chars[index] == "-" ? -1 : 1)
            } else {
                return nil
            }
        }
        let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond)
        guard civil.isValid else { return nil }
        return (civil, offset)
    }

    /// An xsd:duration of hours, minutes and seconds (`PT13H20M`, `PT1.5S`), in milliseconds.
    public static func parseDuration(_ text: String) -> Int64? {
        var rest = Substring(text)
        var negative = false
        if rest.first == "-" { negative = true; rest = rest.dropFirst() }
        guard rest.hasPrefix("PT") || rest.hasPrefix("P") else { return nil }
        var total: Double = 0
        var number = ""
        var inTime = false
        var sawComponent = false
        for c in rest.dropFirst() {
            switch c {
            case "T": inTime = true
            case "0"..."9", ".": number.append(c)
            case "D", "H", "M", "S":
                guard let value = Double(number) else { return nil }
                switch (c, inTime) {
                case ("D", false): total += value * 86_400_000
                case ("H", true): total += value * 3_600_000
                case ("M", true): total += value * 60_000
                case ("S", true): total += value * 1000
                default: return nil
                }
                number = ""
                sawComponent = true
            default: return nil
            }
        }
        guard number.isEmpty, sawComponent else { return nil }
        // Nil rather than a trap when the components add up past Int64 (or to infinity).
        guard let ms = Int64(exactly: total.rounded()) else { return nil }
        return negative ? -ms : ms
    }

    static func parseHex(_ text: String) -> [UInt8]? {
        guard text.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        var iterator = text.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let h = high.hexDigitValue, let l = low.hexDigitValue else { return nil }
            bytes.append(UInt8(h * 16 + l))
        }
        return bytes
    }
}

extension LiteralParser {
    /// Parses a literal whose type its own form tells (`1`, `1L`, `'x'`, `datetime'...'`, `1.5M`),
    /// as in a skip token.
    public static func parseUntyped(_ text: String) throws(URIError) -> EDMValue {
        let lower = text.lowercased()
        if text == "null" { return .null }
        if text == "true" || text == "false" { return .boolean(text == "true") }
        if text.hasPrefix("'") { return try parse(text, as: .string) }
        if lower.hasPrefix("datetimeoffset'") { return try parse(text, as: .dateTimeOffset) }
        if lower.hasPrefix("datetime'") { return try parse(text, as: .dateTime) }
        if lower.hasPrefix("guid'") { return try parse(text, as: .guid) }
        if lower.hasPrefix("time'") { return try parse(text, as: .time) }
        if lower.hasPrefix("x'") || lower.hasPrefix("binary'") { return try parse(text, as: .binary) }
        if lower.hasSuffix("l") { return try parse(text, as: .int64) }
        if lower.hasSuffix("m") { return try parse(text, as: .decimal) }
        if lower.hasSuffix("d") || lower.hasSuffix("f") || text.contains(".") || lower.contains("e") { return try parse(text, as: .double) }
        return try parse(text, as: .int64)
    }

    /// Splits `a,b` at the commas that are outside quoted literals. Scanned as UTF-8: quote and
    /// comma are ASCII, and Character iteration would segment graphemes on every key predicate.
    public static func splitOutsideQuotes(_ text: Substring) -> [Substring] {
        var parts: [Substring] = []
        var inQuotes = false
        let utf8 = text.utf8
        var start = utf8.startIndex
        var index = utf8.startIndex
        while index < utf8.endIndex {
            let byte = utf8[index]
            if byte == UInt8(ascii: "'") {
                inQuotes.toggle()
            } else if byte == UInt8(ascii: ","), !inQuotes {
                parts.append(text[start..<index])
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        parts.append(text[start..<utf8.endIndex])
        return parts
    }
}
