import EDM
import Foundation

/// Reads the text of a literal into an EDM value: numbers with their type suffixes and the
/// prefixed forms `datetime'…'`, `datetimeoffset'…'`, `time'…'`, `guid'…'`, `X'…'`, `binary'…'`.
struct LiteralText {
    let diagnostics: ExpressionDiagnostics
    /// Where the literal starts in the expression, for error messages.
    let position: Int

    // MARK: Numbers

    /// `text` is `[-]digits[.digits][E[+|-]digits]`; `suffix` one of L, M, D, F in either case.
    func number(_ text: String, isIntegral: Bool, suffix: Unicode.Scalar?) throws(URIError) -> ExpressionLiteral {
        switch suffix {
        case "L", "l":
            guard isIntegral else { throw invalid("\(text)L: an Edm.Int64 literal cannot have a fraction or exponent") }
            guard let value = Int64(text) else { throw invalid("\(text)L is out of the range of Edm.Int64") }
            return ExpressionLiteral(.integer(value), .int64, numericText: text)
        case "M", "m":
            return ExpressionLiteral(.decimal(try decimalText(text)), .decimal, numericText: text)
        case "D", "d":
            guard let value = Double(text), value.isFinite else { throw invalid("\(text)d is out of the range of Edm.Double") }
            return ExpressionLiteral(.double(value), .double, numericText: text)
        case "F", "f":
            guard let value = Float(text), value.isFinite else { throw invalid("\(text)f is out of the range of Edm.Single") }
            return ExpressionLiteral(.double(Double(value)), .single, numericText: text)
        default:
            if !isIntegral {
                guard let value = Double(text), value.isFinite else { throw invalid("\(text) is out of the range of Edm.Double") }
                return ExpressionLiteral(.double(value), .double, numericText: text)
            }
            // An integer without suffix is Edm.Int32 when it fits, else the narrowest wider type.
            if let value = Int32(text) { return ExpressionLiteral(.integer(Int64(value)), .int32, numericText: text) }
            if let value = Int64(text) { return ExpressionLiteral(.integer(value), .int64, numericText: text) }
            return ExpressionLiteral(.decimal(try decimalText(text)), .decimal, numericText: text)
        }
    }

    /// The canonical text of a decimal number written as `text`.
    func decimalText(_ text: String) throws(URIError) -> String {
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")), !value.isNaN else {
            throw invalid("\(text) is not a valid Edm.Decimal")
        }
        return value.description
    }

    // MARK: Prefixed literals

    func typedLiteral(prefix: String, text: String) throws(URIError) -> ExpressionLiteral {
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
            throw invalid("unknown literal prefix '\(prefix)'; the prefixes are datetime, datetimeoffset, time, guid, X and binary")
        }
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fffffff]]`, optionally with a trailing `Z`; milliseconds since the epoch.
    func dateTime(_ text: String) throws(URIError) -> Int64 {
        var scanner = LiteralScanner(text)
        let civil = try civilTime(&scanner, text: text, kind: "datetime")
        _ = scanner.take("Z")
        guard scanner.atEnd else {
            if scanner.peek == UInt8(ascii: "+") || scanner.peek == UInt8(ascii: "-") {
                throw invalid("datetime'\(text)' has a time-zone offset; use datetimeoffset'…' for that")
            }
            throw invalid("datetime'\(text)' is not of the form yyyy-mm-ddThh:mm[:ss[.fff]]")
        }
        return civil.millisecondsSinceEpoch
    }

    /// `yyyy-mm-ddThh:mm[:ss[.fff]]` followed by `Z` or `±hh:mm` (UTC when absent): the instant
    /// in milliseconds since the epoch and the offset in minutes.
    func dateTimeOffset(_ text: String) throws(URIError) -> (Int64, Int) {
        var scanner = LiteralScanner(text)
        let civil = try civilTime(&scanner, text: text, kind: "datetimeoffset")
        var offset = 0
        if scanner.take("Z") {
            offset = 0
        } else if let sign = scanner.peek, sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
            scanner.index += 1
            guard let hours = scanner.digits(2), scanner.take(":"), let minutes = scanner.digits(2),
                  hours <= 14, minutes < 60, hours * 60 + minutes <= 14 * 60 else {
                throw invalid("datetimeoffset'\(text)' has an invalid offset; expected Z or ±hh:mm up to 14:00")
            }
            offset = (sign == UInt8(ascii: "-") ? -1 : 1) * (hours * 60 + minutes)
        }
        guard scanner.atEnd else {
            throw invalid("datetimeoffset'\(text)' is not of the form yyyy-mm-ddThh:mm[:ss[.fff]](Z|±hh:mm)")
        }
        return (civil.millisecondsSinceEpoch - Int64(offset) * 60_000, offset)
    }

    private func civilTime(_ scanner: inout LiteralScanner, text: String, kind: String) throws(URIError) -> CivilTime {
        let form = "\(kind)'\(text)' is not of the form yyyy-mm-ddThh:mm[:ss[.fff]]"
        guard let year = scanner.digits(4), scanner.take("-"), let month = scanner.digits(2), scanner.take("-"),
              let day = scanner.digits(2) else { throw invalid(form) }
        var civil = CivilTime(year: year, month: month, day: day)
        if scanner.take("T") {
            guard let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2) else { throw invalid(form) }
            civil.hour = hour
            civil.minute = minute
            if scanner.take(":") {
                guard let second = scanner.digits(2) else { throw invalid(form) }
                civil.second = second
                if scanner.take(".") {
                    civil.millisecond = try milliseconds(&scanner, literal: "\(kind)'\(text)'")
                }
            }
        }
        guard civil.isValid else { throw invalid("\(kind)'\(text)' is not a valid date and time") }
        return civil
    }

    /// The digits after a decimal point, as milliseconds. Up to seven digits are allowed (the
    /// precision of .NET ticks), but the service keeps milliseconds, so finer digits must be zero.
    private func milliseconds(_ scanner: inout LiteralScanner, literal: String) throws(URIError) -> Int {
        let digits = scanner.digitRun()
        guard (1...7).contains(digits.count) else { throw invalid("\(literal) must have 1 to 7 fractional digits") }
        let padded = digits + String(repeating: "0", count: 7 - digits.count)
        guard padded.suffix(4) == "0000" else {
            throw invalid("\(literal) is more precise than the milliseconds this service stores")
        }
        return Int(padded.prefix(3))!
    }

    /// An xsd:duration without years or months (`PT13H20M`, `-P1DT2.5S`), or `hh:mm[:ss[.fff]]`;
    /// milliseconds.
    func time(_ text: String) throws(URIError) -> Int64 {
        var scanner = LiteralScanner(text)
        let form = "time'\(text)' is not a duration of the form PnDTnHnMn.nnnS or a time hh:mm[:ss[.fff]]"
        if let first = scanner.peek, first >= UInt8(ascii: "0"), first <= UInt8(ascii: "9") {
            guard let hour = scanner.digits(2), scanner.take(":"), let minute = scanner.digits(2),
                  hour < 24, minute < 60 else { throw invalid(form) }
            var total = Int64(hour) * 3_600_000 + Int64(minute) * 60_000
            if scanner.take(":") {
                guard let second = scanner.digits(2), second < 60 else { throw invalid(form) }
                total += Int64(second) * 1000
                if scanner.take(".") { total += Int64(try milliseconds(&scanner, literal: "time'\(text)'")) }
            }
            guard scanner.atEnd else { throw invalid(form) }
            return total
        }
        let negative = scanner.take("-")
        guard scanner.take("P") else { throw invalid(form) }
        var total: Int64 = 0
        var components = 0
        var inTime = false
        // Designators allowed next, in order; each component is a whole number but seconds.
        var allowed: [UInt8] = Array("DT".utf8)
        while !scanner.atEnd {
            if scanner.take("T") {
                guard !inTime, allowed.contains(UInt8(ascii: "T")) else { throw invalid(form) }
                inTime = true
                allowed = Array("HMS".utf8)
                continue
            }
            let whole = scanner.digitRun()
            guard !whole.isEmpty, whole.count <= 9, let amount = Int64(whole) else { throw invalid(form) }
            var fraction = 0
            if scanner.peek == UInt8(ascii: ".") {
                scanner.index += 1
                fraction = try milliseconds(&scanner, literal: "time'\(text)'")
                guard inTime, scanner.peek == UInt8(ascii: "S") else { throw invalid(form) }
            }
            guard let designator = scanner.peek, let slot = allowed.firstIndex(of: designator) else {
                if !inTime, scanner.peek == UInt8(ascii: "Y") || scanner.peek == UInt8(ascii: "M") {
                    throw invalid("time'\(text)' has years or months, which are not a fixed length of time")
                }
                throw invalid(form)
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
        guard components > 0, !(inTime && allowed.count == 3) else { throw invalid(form) }
        return negative ? -total : total
    }

    /// `dddddddd-dddd-dddd-dddd-dddddddddddd` in hexadecimal; the lower-case canonical form.
    func guid(_ text: String) throws(URIError) -> String {
        let bytes = Array(text.utf8)
        let valid = bytes.count == 36 && bytes.enumerated().allSatisfy { index, byte in
            [8, 13, 18, 23].contains(index) ? byte == UInt8(ascii: "-") : LiteralScanner.hexValue(byte) != nil
        }
        guard valid else { throw invalid("guid'\(text)' is not of the form dddddddd-dddd-dddd-dddd-dddddddddddd") }
        return text.lowercased()
    }

    /// Pairs of hexadecimal digits.
    func binary(_ text: String) throws(URIError) -> [UInt8] {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { throw invalid("binary literal '\(text)' must have an even number of hexadecimal digits") }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = LiteralScanner.hexValue(digits[index]), let low = LiteralScanner.hexValue(digits[index + 1]) else {
                throw invalid("binary literal '\(text)' must hold only hexadecimal digits")
            }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private func invalid(_ detail: String) -> URIError {
        diagnostics.invalidLiteral(detail, at: position)
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
