import EDM
import Foundation

/// The grammar of URI literals (MS-ODATA 2.2.2), the one that key predicates, skip tokens and
/// `$filter` all read with: `ExpressionLexer` finds where a literal ends, this reads what it
/// says. Prefixes are read in any case, as WCF Data Services and Olingo read them.
///
/// | type | accepted | refused |
/// |---|---|---|
/// | Boolean | `true` `false` | `1` `0` (Int32 literals, as in `$filter`), `True` |
/// | Int32 (and the smaller integers) | `-5` `007` | `+5`, a fraction |
/// | Int64 | `5L` `5l`, `5` where the type is known | a fraction or exponent with `L` |
/// | Double | `1.5` `1.5d` `1E2` `-2.5e+2d` `INF` `-INF` | `NaN` (SQLite has none), `.5`, `5.` |
/// | Single | `1.5f`, kept as written (the store holds doubles) | beyond the Single range |
/// | Decimal | `1.5M` `1.50m` `12M`, exact digits, an exponent | — |
/// | String | `'it''s'` (a quote doubled) | an unclosed quote |
/// | Guid | `guid'dddddddd-dddd-dddd-dddd-dddddddddddd'` | other shapes |
/// | DateTime | `datetime'yyyy-mm-ddThh:mm[:ss[.fffffff]][Z]'`, `datetime'yyyy-mm-dd'` (WCF) | an offset other than Z |
/// | DateTimeOffset | `datetimeoffset'yyyy-mm-ddThh:mm[:ss[.fffffff]]Z'`, or `±hh:mm` for `Z` | no offset, beyond ±14:00 |
/// | Time | `time'PnDTnHnMn.nS'` (dayTimeDuration), `time'hh:mm[:ss[.fff]]'` | years, months, a fraction but on seconds |
/// | Binary | `X'0AFF'` `binary'0aff'` `X''` | an odd number of digits |
///
/// Times carry at most seven fractional digits (.NET ticks), but the service keeps
/// milliseconds: a literal whose digits beyond the third are not zero is refused rather than
/// rounded, since a rounded value would make `eq`, `lt` and `ge` answer for another instant.
enum LiteralGrammar {
    /// Why a literal's text is not a literal of its form.
    struct Invalid: Error {
        let detail: String
        init(_ detail: String) { self.detail = detail }
    }

    /// What to do with fractional digits beyond the milliseconds a value keeps.
    enum SubMilliseconds {
        /// A URI literal: finer digits must be zero.
        case refuse
        /// A request body: finer digits are dropped (the model's precision is milliseconds).
        case truncate
    }

    // MARK: Numbers

    /// `text` is `[-]digits[.digits][E[+|-]digits]`; `suffix` one of L, M, D, F in either case.
    static func number(_ text: String, isIntegral: Bool, suffix: Unicode.Scalar?) throws(Invalid) -> ExpressionLiteral {
        switch suffix {
        case "L", "l":
            guard isIntegral else { throw Invalid("\(text)L: an Edm.Int64 literal cannot have a fraction or exponent") }
            guard let value = Int64(text) else { throw Invalid("\(text)L is out of the range of Edm.Int64") }
            return ExpressionLiteral(.integer(value), .int64, numericText: text)
        case "M", "m":
            guard let decimal = decimalText(text) else { throw Invalid("\(text) is not a valid Edm.Decimal") }
            return ExpressionLiteral(.decimal(decimal), .decimal, numericText: text)
        case "D", "d":
            guard let value = Double(text), value.isFinite else { throw Invalid("\(text)d is out of the range of Edm.Double") }
            return ExpressionLiteral(.double(value), .double, numericText: text)
        case "F", "f":
            // Read as written, not rounded to 32 bits: the store keeps Singles as doubles, so
            // the value a client wrote compares equal to the literal it writes for it.
            guard let value = Double(text), Float(text)?.isFinite == true else { throw Invalid("\(text)f is out of the range of Edm.Single") }
            return ExpressionLiteral(.double(value), .single, numericText: text)
        default:
            if !isIntegral {
                guard let value = Double(text), value.isFinite else { throw Invalid("\(text) is out of the range of Edm.Double") }
                return ExpressionLiteral(.double(value), .double, numericText: text)
            }
            // An integer without suffix is Edm.Int32 when it fits, else the narrowest wider type.
            if let value = Int32(text) { return ExpressionLiteral(.integer(Int64(value)), .int32, numericText: text) }
            if let value = Int64(text) { return ExpressionLiteral(.integer(value), .int64, numericText: text) }
            guard let decimal = decimalText(text) else { throw Invalid("\(text) is not a valid Edm.Decimal") }
            return ExpressionLiteral(.decimal(decimal), .decimal, numericText: text)
        }
    }

    /// The canonical text of a decimal number written as `text` (`[-]digits[.digits][E…]`): its
    /// digits exactly when it has no exponent, else as Foundation's Decimal reads it.
    static func decimalText(_ text: String) -> String? {
        if LiteralParser.isDecimalNumber(Substring(text), allowExponent: false) {
            return LiteralParser.canonicalDecimal(Substring(text))
        }
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else { return nil }
        return value.description
    }

    /// A number's value in a wider numeric type, as `$filter`'s promotion and a key of a wider
    /// type take it (a number re-read as a Decimal from `numericText`, its digits as written);
    /// nil where the conversion is no widening (truncation toward an integral type,
    /// non-finite to Decimal).
    static func widened(_ value: EDMValue, numericText: String?, to target: PrimitiveType) -> EDMValue? {
        switch (value, target) {
        case (.null, _): return .null
        case (.integer, _) where target.isIntegral: return value
        case (.integer(let number), .double), (.integer(let number), .single): return .double(Double(number))
        case (.integer(let number), .decimal): return .decimal(String(number))
        case (.double, .double), (.double, .single): return value
        case (.double(let number), .decimal) where number.isFinite:
            return .decimal(numericText.flatMap(decimalText) ?? String(number))
        case (.decimal(let text), .double), (.decimal(let text), .single): return Double(text).map(EDMValue.double)
        default: return nil
        }
    }

    // MARK: Prefixed literals

    static func prefixed(_ prefix: String, _ text: String) throws(Invalid) -> ExpressionLiteral {
        switch prefix.lowercased() {
        case "datetime":
            return ExpressionLiteral(.dateTime(try dateTime(text)), .dateTime)
        case "datetimeoffset":
            let (milliseconds, offset) = try dateTimeOffset(text)
            return ExpressionLiteral(.dateTimeOffset(milliseconds, offsetMinutes: offset), .dateTimeOffset)
        case "time":
            return ExpressionLiteral(.time(try time(text)), .time)
        case "guid":
            return ExpressionLiteral(.guid(try guid(text)), .guid)
        case "x", "binary":
            return ExpressionLiteral(.binary(try binary(text)), .binary)
        default:
            throw Invalid("unknown literal prefix '\(prefix)'; the prefixes are datetime, datetimeoffset, time, guid, X and binary")
        }
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fffffff]]`, optionally with a trailing `Z`, or a bare date
    /// `yyyy-mm-dd` (midnight), which WCF Data Services accepts; milliseconds since the epoch.
    /// An offset other than `Z` is refused: an Edm.DateTime has none, and servers disagree on
    /// what it would mean (Olingo converts to UTC, WCF to the server's local time).
    static func dateTime(_ text: String) throws(Invalid) -> Int64 {
        let form = "datetime'\(text)' is not of the form yyyy-mm-ddThh:mm[:ss[.fffffff]][Z] or yyyy-mm-dd"
        var scanner = LiteralScanner(text)
        guard let (civil, hasTime) = try civilTime(&scanner, literal: "datetime'\(text)'", form: form, subMilliseconds: .refuse) else {
            throw Invalid(form)
        }
        if hasTime { _ = scanner.take("Z") }
        guard scanner.atEnd else {
            if hasTime, scanner.peek == UInt8(ascii: "+") || scanner.peek == UInt8(ascii: "-") {
                throw Invalid("datetime'\(text)' has a time-zone offset; use datetimeoffset'…' for that")
            }
            throw Invalid(form)
        }
        return civil.millisecondsSinceEpoch
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fffffff]]` followed by `Z` or `±hh:mm` (required, as in XML
    /// Schema's dateTime with a time zone): the instant in milliseconds since the epoch and the
    /// offset in minutes.
    static func dateTimeOffset(_ text: String) throws(Invalid) -> (Int64, Int) {
        let form = "datetimeoffset'\(text)' is not of the form yyyy-mm-ddThh:mm[:ss[.fffffff]](Z|±hh:mm)"
        var scanner = LiteralScanner(text)
        guard let (civil, hasTime) = try civilTime(&scanner, literal: "datetimeoffset'\(text)'", form: form, subMilliseconds: .refuse),
              hasTime else { throw Invalid(form) }
        guard let offset = try offset(&scanner, literal: "datetimeoffset'\(text)'"), scanner.atEnd else { throw Invalid(form) }
        return (civil.millisecondsSinceEpoch - Int64(offset) * 60_000, offset)
    }

    /// `Z` or `±hh:mm` up to 14:00 in minutes; nil when neither comes next.
    static func offset(_ scanner: inout LiteralScanner, literal: String) throws(Invalid) -> Int? {
        if scanner.take("Z") { return 0 }
        guard let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") else { return nil }
        scanner.index += 1
        guard let hours = scanner.digits(2), scanner.take(":"), let minutes = scanner.digits(2),
              minutes < 60, hours * 60 + minutes <= 14 * 60 else {
            throw Invalid("\(literal) has an invalid offset; expected Z or ±hh:mm up to 14:00")
        }
        return (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
    }

    /// `yyyy-mm-dd[Thh:mm[:ss[.f…]]]` from the scanner's position, and whether the time was
    /// there; nil when the text does not start so. Throws for a form that is right but a date
    /// or fraction that is not.
    static func civilTime(_ scanner: inout LiteralScanner, literal: String, form: String,
                          subMilliseconds: SubMilliseconds) throws(Invalid) -> (CivilTime, Bool)? {
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2) else { return nil }
        var civil = CivilTime(year: year, month: month, day: day)
        let hasTime = scanner.take("T")
        if hasTime {
            guard let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2) else { throw Invalid(form) }
            civil.hour = hour
            civil.minute = minute
            if scanner.take(":") {
                guard let second = scanner.digits(2) else { throw Invalid(form) }
                civil.second = second
                if scanner.take(".") {
                    civil.millisecond = try milliseconds(&scanner, literal: literal, subMilliseconds: subMilliseconds)
                }
            }
        }
        guard civil.isValid else { throw Invalid("\(literal) is not a valid date and time") }
        return (civil, hasTime)
    }

    /// The digits after a decimal point, as milliseconds: one to seven (the precision of .NET
    /// ticks), and what is finer than milliseconds refused or dropped as `subMilliseconds` says.
    static func milliseconds(_ scanner: inout LiteralScanner, literal: String,
                             subMilliseconds: SubMilliseconds) throws(Invalid) -> Int {
        let digits = scanner.digitRun()
        guard (1...7).contains(digits.count) else { throw Invalid("\(literal) must have 1 to 7 fractional digits") }
        let padded = digits + String(repeating: "0", count: 7 - digits.count)
        guard subMilliseconds == .truncate || padded.suffix(4) == "0000" else {
            throw Invalid("\(literal) is more precise than the milliseconds this service stores")
        }
        return Int(padded.prefix(3))!
    }

    /// An xsd:dayTimeDuration (`PT13H20M`, `-P1DT2.5S`: no years or months, a fraction on the
    /// seconds only), or a time of day `hh:mm[:ss[.fff]]`; milliseconds.
    static func time(_ text: String) throws(Invalid) -> Int64 {
        let form = "time'\(text)' is not a duration of the form PnDTnHnMn.nnnS or a time hh:mm[:ss[.fff]]"
        var scanner = LiteralScanner(text)
        if let first = scanner.peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
            guard let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2),
                  hour < 24, minute < 60 else { throw Invalid(form) }
            var total = Int64(hour) * 3_600_000 + Int64(minute) * 60_000
            if scanner.take(":") {
                guard let second = scanner.digits(2), second < 60 else { throw Invalid(form) }
                total += Int64(second) * 1000
                if scanner.take(".") { total += Int64(try milliseconds(&scanner, literal: "time'\(text)'", subMilliseconds: .refuse)) }
            }
            guard scanner.atEnd else { throw Invalid(form) }
            return total
        }
        guard let total = try duration(text, literal: "time'\(text)'", subMilliseconds: .refuse) else { throw Invalid(form) }
        return total
    }

    /// An xsd:dayTimeDuration in milliseconds; nil when `text` is not one. Throws for one whose
    /// form is right but whose years, months or fraction are not.
    static func duration(_ text: String, literal: String, subMilliseconds: SubMilliseconds) throws(Invalid) -> Int64? {
        var scanner = LiteralScanner(text)
        let negative = scanner.take("-")
        guard scanner.take("P") else { return nil }
        var total: Int64 = 0
        var components = 0
        var inTime = false
        // Designators allowed next, in order; each component is a whole number but seconds.
        var allowed: [UInt8] = Array("DT".utf8)
        while !scanner.atEnd {
            if scanner.take("T") {
                guard !inTime, allowed.contains(UInt8(ascii: "T")) else { return nil }
                inTime = true
                allowed = Array("HMS".utf8)
                continue
            }
            let whole = scanner.digitRun()
            guard !whole.isEmpty, whole.count <= 9, let amount = Int64(whole) else { return nil }
            var fraction = 0
            if scanner.peek == UInt8(ascii: ".") {
                scanner.index += 1
                fraction = try milliseconds(&scanner, literal: literal, subMilliseconds: subMilliseconds)
                guard inTime, scanner.peek == UInt8(ascii: "S") else { return nil }
            }
            guard let designator = scanner.peek, let slot = allowed.firstIndex(of: designator) else {
                if !inTime, scanner.peek == UInt8(ascii: "Y") || scanner.peek == UInt8(ascii: "M") {
                    throw Invalid("\(literal) has years or months, which are not a fixed length of time")
                }
                return nil
            }
            scanner.index += 1
            allowed.removeFirst(slot + 1)
            switch designator {
            case UInt8(ascii: "D"): total += amount * 86_400_000
            case UInt8(ascii: "H"): total += amount * 3_600_000
            case UInt8(ascii: "M"): total += amount * 60_000
            default: total += amount * 1000 + Int64(fraction)
            }
            components += 1
        }
        guard components > 0, !(inTime && allowed.count == 3) else { return nil }
        return negative ? -total : total
    }

    /// `dddddddd-dddd-dddd-dddd-dddddddddddd` in hexadecimal; the lower-case canonical form.
    static func guid(_ text: String) throws(Invalid) -> String {
        guard LiteralParser.isGuid(text) else { throw Invalid("guid'\(text)' is not of the form dddddddd-dddd-dddd-dddd-dddddddddddd") }
        return text.lowercased()
    }

    /// Pairs of hexadecimal digits (none for the empty value).
    static func binary(_ text: String) throws(Invalid) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw Invalid("binary literal '\(text)' must have an even number of hexadecimal digits") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = LiteralScanner.hexValue(digits[index]), let low = LiteralScanner.hexValue(digits[index + 1]) else {
                throw Invalid("binary literal '\(text)' must hold only hexadecimal digits")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }
}

/// A cursor over the ASCII text of a literal.
struct LiteralScanner {
    let bytes: [UInt8]
    var index = 0

    init(_ text: String) { bytes = Array(text.utf8) }

    var atEnd: Bool { index >= bytes.count }
    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func take(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(character.value) else { return false }
        index += 1
        return true
    }

    /// Exactly `count` decimal digits.
    mutating func digits(_ count: Int) -> Int? {
        guard index + count <= bytes.count else { return nil }
        var value = 0
        for byte in bytes[index..<index + count] {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(byte - UInt8(ascii: "0"))
        }
        index += count
        return value
    }

    /// All decimal digits from here on.
    mutating func digitRun() -> String {
        let start = index
        while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") { index += 1 }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
