import EDM
import ODataURI

/// The textual forms of date and time values that verbose-JSON bodies and raw `$value` bodies
/// carry (MS-ODATA 2.2.6.3.1 and XML Schema):
/// - `/Date(1257076800000)/` and `/Date(1257076800000+0060)/`: milliseconds since the epoch,
///   with an optional offset in minutes (the JSON text `"\/Date(...)\/"` unescapes to it). With
///   an offset the milliseconds count the local clock time the offset belongs to, so the instant
///   is the milliseconds less the offset: MS-ODATA (2.2.6.3.1) gives the form but not its reading,
///   and this is how pyodata, Apache Olingo V2 (`EdmDateTimeOffset`) and datajs write and read it;
/// - `2009-11-01T12:00:00[.fffffff][Z|±hh:mm]`, or a bare date `2009-11-01`;
/// - `PT13H20M[30.5S]` (xs:duration) or `13:20[:30.5]` for a time of day.
/// The ISO and duration grammars are the URI literals' (`LiteralParser`), so a value reads the
/// same in a URI and in a body; only the JSON date form is this file's own.
enum DateTimeText {
    /// An instant in milliseconds since the epoch (UTC) and the offset it was written with,
    /// nil when it was written without one.
    struct Instant: Equatable {
        var milliseconds: Int64
        var offsetMinutes: Int?
    }

    /// 0001-01-01T00:00:00Z through 9999-12-31T23:59:59.999Z, the range of .NET's DateTime.
    static let supportedMilliseconds: ClosedRange<Int64> = -62_135_596_800_000...253_402_300_799_999

    static func parseInstant(_ text: String) -> Instant? {
        if text.hasPrefix("/Date(") { return parseJSONDate(text) }
        return parseISO(text)
    }

    /// `/Date(ms)/` or `/Date(ms±mmmm)/`, `ms` the local clock time of the offset.
    static func parseJSONDate(_ text: String) -> Instant? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        let inner = Array(text.utf8.dropFirst(6).dropLast(2))
        guard !inner.isEmpty else { return nil }
        // The sign of the offset is the first + or - after the first character (which may be
        // the sign of the milliseconds).
        var split = inner.count
        for i in 1..<max(inner.count, 1) where inner[i] == UInt8(ascii: "+") || inner[i] == UInt8(ascii: "-") {
            split = i
            break
        }
        let msText = inner[0..<split]
        guard isSignedDigits(msText), let localMilliseconds = Int64(String(decoding: msText, as: UTF8.self)) else { return nil }
        guard split < inner.count else {
            return supportedMilliseconds.contains(localMilliseconds) ? Instant(milliseconds: localMilliseconds, offsetMinutes: nil) : nil
        }
        let offsetDigits = inner[(split + 1)...]
        guard (1...4).contains(offsetDigits.count), offsetDigits.allSatisfy(isDigit),
              let minutes = Int(String(decoding: offsetDigits, as: UTF8.self)), minutes <= 14 * 60 else { return nil }
        let offset = inner[split] == UInt8(ascii: "-") ? -minutes : minutes
        let ms = localMilliseconds - Int64(offset) * 60_000
        guard supportedMilliseconds.contains(ms) else { return nil }
        return Instant(milliseconds: ms, offsetMinutes: offset)
    }

    /// `yyyy-mm-ddThh:mm[:ss[.f{1,7}]][Z|±hh:mm]`, or a bare `yyyy-mm-dd` (midnight). Digits
    /// beyond milliseconds are dropped: the model's DateTime precision is milliseconds.
    static func parseISO(_ text: String) -> Instant? {
        let full = text.utf8.count == 10 ? text + "T00:00" : text
        guard let (civil, offset) = LiteralParser.parseDateTime(full), civil.year >= 1 else { return nil }
        let ms = civil.millisecondsSinceEpoch - Int64(offset ?? 0) * 60_000
        guard supportedMilliseconds.contains(ms) else { return nil }
        return Instant(milliseconds: ms, offsetMinutes: offset)
    }

    /// A time of day in milliseconds since midnight, from `PT13H20M30.5S` (optionally with a
    /// `0D` day part) or `13:20[:30[.5]]`. Nil when malformed; the caller checks the range.
    static func parseTimeOfDay(_ text: String) -> Int64? {
        if text.hasPrefix("P") {
            guard let ms = LiteralParser.parseDuration(text), ms >= 0 else { return nil }
            return ms
        }
        // A clock time is the time part of an ISO date-time without an offset.
        guard let (civil, offset) = LiteralParser.parseDateTime("2000-01-01T" + text), offset == nil else { return nil }
        return Int64(civil.hour) * 3_600_000 + Int64(civil.minute) * 60_000 + Int64(civil.second) * 1000 + Int64(civil.millisecond)
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private static func isSignedDigits(_ bytes: ArraySlice<UInt8>) -> Bool {
        var digits = bytes[...]
        if digits.first == UInt8(ascii: "-") || digits.first == UInt8(ascii: "+") { digits = digits.dropFirst() }
        return !digits.isEmpty && digits.count <= 18 && digits.allSatisfy(isDigit)
    }
}
