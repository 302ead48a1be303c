import Foundation

/// An Edm.Time: a time of day or a duration, which OData V2 writes as an XML Schema duration
/// (`"PT13H20M"`, `"PT9H30M15.5S"`, `"P1DT2H"`).
public struct ODataDuration: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The length in seconds.
    public var seconds: Double

    public init(seconds: Double) {
        self.seconds = seconds
    }

    public init(hours: Int = 0, minutes: Int = 0, seconds: Double = 0) {
        self.seconds = Double(hours * 3600 + minutes * 60) + seconds
    }

    /// Reads `PnDTnHnMn.nS` (any part may be left out, a leading `-` negates); nil if malformed.
    public init?(iso8601 text: String) {
        var rest = Substring(text)
        let negative = rest.hasPrefix("-")
        if negative { rest = rest.dropFirst() }
        guard rest.hasPrefix("P") else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var sawPart = false
        for character in rest {
            if character == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
            } else if character.isNumber || character == "." {
                number.append(character)
            } else {
                guard let value = Double(number) else { return nil }
                switch (inTime, character) {
                case (false, "D"): total += value * 86_400
                case (true, "H"): total += value * 3_600
                case (true, "M"): total += value * 60
                case (true, "S"): total += value
                default: return nil
                }
                number = ""
                sawPart = true
            }
        }
        guard number.isEmpty, sawPart else { return nil }
        seconds = negative ? -total : total
    }

    /// `PT13H20M`, `PT9H30M15.5S`, `PT0S`.
    public var iso8601: String {
        var remaining = abs(seconds)
        let days = Int(remaining / 86_400)
        remaining -= Double(days) * 86_400
        let hours = Int(remaining / 3_600)
        remaining -= Double(hours) * 3_600
        let minutes = Int(remaining / 60)
        remaining -= Double(minutes) * 60
        var text = seconds < 0 ? "-P" : "P"
        if days > 0 { text += "\(days)D" }
        text += "T"
        if hours > 0 { text += "\(hours)H" }
        if minutes > 0 { text += "\(minutes)M" }
        if remaining > 0 || text.hasSuffix("T") {
            let rounded = (remaining * 1000).rounded() / 1000
            text += rounded == rounded.rounded() ? "\(Int(rounded))S" : "\(rounded)S"
        }
        return text
    }

    public var description: String { iso8601 }

    public static func < (lhs: ODataDuration, rhs: ODataDuration) -> Bool { lhs.seconds < rhs.seconds }
}

extension ODataDuration: ODataPrimitive {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let duration = ODataDuration(iso8601: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an Edm.Time duration")
        }
        self = duration
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(iso8601)
    }
}

extension ODataDuration: Codable {
    public init(from decoder: any Decoder) throws { try self.init(odataFrom: decoder) }
    public func encode(to encoder: any Encoder) throws { try encodeOData(to: encoder) }
}

extension ODataDuration: ODataLiteralConvertible {
    /// `time'PT13H20M'`.
    public var odataLiteralText: String { "time'\(iso8601)'" }
}
