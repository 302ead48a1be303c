import Foundation

/// An Edm.DateTimeOffset: an instant and the offset from UTC it was written at. `Date` alone
/// would lose the offset, so a value read and written back would come back at `+00:00`.
public struct ODataDateTimeOffset: Hashable, Sendable, Codable, CustomStringConvertible {
    /// The instant.
    public var date: Date
    /// Minutes east of UTC: `330` for `+05:30`, `-300` for `-05:00`.
    public var offsetMinutes: Int

    public init(_ date: Date, offsetMinutes: Int = 0) {
        self.date = date
        self.offsetMinutes = offsetMinutes
    }

    /// The instant shown in a time zone's offset at that instant.
    public init(_ date: Date, in timeZone: TimeZone) {
        self.init(date, offsetMinutes: timeZone.secondsFromGMT(for: date) / 60)
    }

    /// A fixed-offset zone for the offset, to format the clock time the value was written in.
    public var timeZone: TimeZone {
        TimeZone(secondsFromGMT: offsetMinutes * 60) ?? TimeZone(identifier: "UTC")!
    }

    /// Reads `/Date(ms±mmmm)/` or ISO 8601 text, keeping the offset.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = ODataDate.parseWithOffset(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an Edm.DateTimeOffset (expected \"/Date(ms±mmmm)/\")")
        }
        self = value
    }

    /// Writes `/Date(ms±mmmm)/`, the milliseconds being the clock time at the offset.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(ODataDate.format(self))
    }

    /// ISO 8601 with the offset: `2012-03-04T05:06:07.5+05:30`.
    public var isoText: String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let milliseconds = Int(((date.timeIntervalSince1970 * 1000).rounded()).truncatingRemainder(dividingBy: 1000) + 1000) % 1000
        var text = String(format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year!, parts.month!, parts.day!,
                          parts.hour!, parts.minute!, parts.second!)
        if milliseconds > 0 {
            text += String(format: ".%03d", milliseconds)
        }
        let magnitude = abs(offsetMinutes)
        text += (offsetMinutes < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
        return text
    }

    public var description: String { isoText }
}

extension ODataDateTimeOffset: ODataPrimitive {}

extension ODataDateTimeOffset: ODataLiteralConvertible {
    /// `datetimeoffset'2012-03-04T05:06:07+05:30'`.
    public var odataLiteralText: String { "datetimeoffset'\(isoText)'" }
}
