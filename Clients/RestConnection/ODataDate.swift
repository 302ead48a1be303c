import Foundation

/// OData V2's JSON form of dates: `"\/Date(1257008908440)\/"`, milliseconds since 1970 in UTC,
/// with an optional `+mmmm`/`-mmmm` offset in minutes for Edm.DateTimeOffset. With an offset the
/// milliseconds are the clock time at that offset, as Olingo V2, pyodata and datajs read and write
/// them: `/Date(1330837567000+0330)/` is 05:06:07+05:30, the instant 23:36:07Z the day before.
/// ISO 8601 text is read too, as some servers write it; without a zone it is taken as UTC.
public enum ODataDate {
    /// Reads either form as an instant; nil if the text is neither.
    public static func parse(_ text: String) -> Date? {
        parseWithOffset(text)?.date
    }

    /// Reads either form keeping the offset it was written with (zero when it has none).
    public static func parseWithOffset(_ text: String) -> ODataDateTimeOffset? {
        parseMilliseconds(text) ?? parseISO8601(text)
    }

    /// Writes the `/Date(ms)/` form (JSON encoders escape its slashes, which is the same string).
    public static func format(_ date: Date) -> String {
        "/Date(\(milliseconds(of: date)))/"
    }

    /// Writes `/Date(ms±mmmm)/`: the clock time at the offset, then the offset in minutes.
    public static func format(_ value: ODataDateTimeOffset) -> String {
        let clock = milliseconds(of: value.date) + Int64(value.offsetMinutes) * 60_000
        let sign = value.offsetMinutes < 0 ? "-" : "+"
        let minutes = String(abs(value.offsetMinutes))
        return "/Date(\(clock)\(sign)\(String(repeating: "0", count: max(0, 4 - minutes.count)) + minutes))/"
    }

    private static func milliseconds(of date: Date) -> Int64 {
        Int64((date.timeIntervalSince1970 * 1000).rounded())
    }

    private static func parseMilliseconds(_ text: String) -> ODataDateTimeOffset? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        var inner = Substring(text.dropFirst(6).dropLast(2))
        var offsetMinutes = 0
        if let sign = inner.dropFirst().lastIndex(where: { $0 == "+" || $0 == "-" }) {
            let offset = inner[inner.index(after: sign)...]
            guard !offset.isEmpty, offset.allSatisfy(\.isASCIIDigit), let minutes = Int(offset), minutes <= 24 * 60 else { return nil }
            offsetMinutes = inner[sign] == "-" ? -minutes : minutes
            inner = inner[..<sign]
        }
        guard let clock = Int64(inner) else { return nil }
        let instant = Double(clock - Int64(offsetMinutes) * 60_000) / 1000
        return ODataDateTimeOffset(Date(timeIntervalSince1970: instant), offsetMinutes: offsetMinutes)
    }

    private static func parseISO8601(_ text: String) -> ODataDateTimeOffset? {
        // yyyy-MM-ddTHH:mm[:ss[.fffffff]][Z|±hh:mm]
        let scalars = Array(text.utf8)
        var index = 0
        func number(_ digits: Int) -> Int? {
            guard index + digits <= scalars.count else { return nil }
            var value = 0
            for byte in scalars[index..<index + digits] {
                guard byte >= 48, byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            index += digits
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard index < scalars.count, scalars[index] == byte else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
              let day = number(2), expect(UInt8(ascii: "T")), let hour = number(2), expect(UInt8(ascii: ":")),
              let minute = number(2) else { return nil }
        var second = 0
        var fraction = 0.0
        if expect(UInt8(ascii: ":")) {
            guard let s = number(2) else { return nil }
            second = s
            if expect(UInt8(ascii: ".")) {
                var scale = 0.1
                while index < scalars.count, scalars[index] >= 48, scalars[index] <= 57 {
                    fraction += Double(scalars[index] - 48) * scale
                    scale /= 10
                    index += 1
                }
            }
        }
        var offsetSeconds = 0
        if expect(UInt8(ascii: "Z")) {
        } else if index < scalars.count, scalars[index] == UInt8(ascii: "+") || scalars[index] == UInt8(ascii: "-") {
            let negative = scalars[index] == UInt8(ascii: "-")
            index += 1
            guard let hours = number(2), expect(UInt8(ascii: ":")), let minutes = number(2) else { return nil }
            offsetSeconds = (hours * 3600 + minutes * 60) * (negative ? -1 : 1)
        }
        guard index == scalars.count else { return nil }
        var components = DateComponents()
        components.year = year
        components.month = month
        components.day = day
        components.hour = hour
        components.minute = minute
        components.second = second
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        guard let date = calendar.date(from: components) else { return nil }
        return ODataDateTimeOffset(date.addingTimeInterval(fraction - Double(offsetSeconds)), offsetMinutes: offsetSeconds / 60)
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
