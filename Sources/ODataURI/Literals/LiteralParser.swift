import EDM

/// Reads a URI literal that stands alone, as in a key predicate or a skip token, with the same
/// scanner and grammar as `$filter` (`ExpressionLexer`, `LiteralGrammar`): a text is the same
/// literal, or the same error, wherever it is written.
public enum LiteralParser {
    /// The literal that `text` is, whole, typed by its form (`5` Int32, `5L` Int64,
    /// `datetime'…'` DateTime, …); nil for `null`. No space may surround it.
    static func scan(_ text: String) throws(URIError) -> ExpressionLiteral? {
        try ExpressionLexer.literal(text)
    }

    /// `literal` as a value of `type` (a key's), or nil when it cannot be one without loss: a
    /// literal of that type; an integer into any integer type whose range holds it, or into a
    /// floating-point or decimal type; another number into Double, Single or Decimal.
    static func value(of literal: ExpressionLiteral, as type: PrimitiveType) -> EDMValue? {
        if literal.type == type { return literal.value }
        if type.isIntegral {
            guard literal.type.isIntegral, case .integer(let number) = literal.value, IntegerArithmetic.fits(number, in: type) else { return nil }
            return literal.value
        }
        return LiteralGrammar.widened(literal.value, numericText: literal.numericText, to: type)
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
        let bytes = Array(text.utf8)
        return bytes.count == 36 && bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : LiteralScanner.hexValue(byte) != nil
        }
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fffffff]]` with an optional `Z` or `±hh:mm` offset, as request
    /// bodies write date-times: the URI literals' grammar, with digits finer than milliseconds
    /// dropped (the model keeps milliseconds). Nil when `text` is not of that form.
    public static func parseDateTime(_ text: String) -> (CivilTime, Int?)? {
        var scanner = LiteralScanner(text)
        do {
            guard let (civil, hasTime) = try LiteralGrammar.civilTime(&scanner, literal: text, form: text, subMilliseconds: .truncate),
                  hasTime else { return nil }
            let offset = try LiteralGrammar.offset(&scanner, literal: text)
            return scanner.atEnd ? (civil, offset) : nil
        } catch {
            return nil
        }
    }

    /// An xsd:dayTimeDuration (`PT13H20M`, `PT1.5S`) in milliseconds, as request bodies write
    /// Edm.Time: the URI literals' grammar, with digits finer than milliseconds dropped.
    public static func parseDuration(_ text: String) -> Int64? {
        (try? LiteralGrammar.duration(text, literal: text, subMilliseconds: .truncate)) ?? nil
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
