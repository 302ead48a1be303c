import Foundation

/// A Swift type that holds an EDM simple type, read and written in OData V2's JSON form
/// whatever the decoder's or encoder's own strategies are:
/// Edm.Int64 and Edm.Decimal are strings, Edm.DateTime is `"\/Date(ms)\/"`, Edm.Double may be
/// `"INF"` or `"NaN"`. Reading is lenient where servers differ (a number for an Int64, say).
public protocol ODataPrimitive: Sendable {
    init(odataFrom decoder: any Decoder) throws
    func encodeOData(to encoder: any Encoder) throws
}

extension ODataPrimitive where Self: Codable {
    public init(odataFrom decoder: any Decoder) throws {
        self = try decoder.singleValueContainer().decode(Self.self)
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(self)
    }
}

extension String: ODataPrimitive {}
extension Bool: ODataPrimitive {}
extension Data: ODataPrimitive {}
extension JSONValue: ODataPrimitive {}

/// Integers that JSON writes as numbers (Edm.Byte, SByte, Int16, Int32); a string is accepted too.
public protocol ODataNumericInteger: FixedWidthInteger, Codable, ODataPrimitive {}

extension ODataNumericInteger {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Self.self) {
            self = value
        } else if let text = try? container.decode(String.self), let value = Self(text) {
            self = value
        } else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "expected a whole number that fits \(Self.self)")
        }
    }
}

extension UInt8: ODataNumericInteger {}
extension Int8: ODataNumericInteger {}
extension Int16: ODataNumericInteger {}
extension Int32: ODataNumericInteger {}

extension Int64: ODataPrimitive {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let value = Int64(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an Edm.Int64")
            }
            self = value
        } else {
            self = try container.decode(Int64.self)
        }
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(String(self))
    }
}

extension Decimal: ODataPrimitive {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let text = try? container.decode(String.self) {
            guard let value = Decimal.parseOData(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an Edm.Decimal")
            }
            self = value
        } else {
            self = try container.decode(Decimal.self)
        }
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }

    /// Reads a decimal written in invariant form (`-12.50`, `1E+3`); nil unless all of it is a number.
    static func parseOData(_ text: String) -> Decimal? {
        var bytes = Substring(text).utf8[...]
        func digits() -> Int {
            let count = bytes.prefix(while: { $0 >= 48 && $0 <= 57 }).count
            bytes = bytes.dropFirst(count)
            return count
        }
        if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
        var mantissaDigits = digits()
        if bytes.first == UInt8(ascii: ".") {
            bytes = bytes.dropFirst()
            mantissaDigits += digits()
        }
        guard mantissaDigits > 0 else { return nil }
        if bytes.first == UInt8(ascii: "e") || bytes.first == UInt8(ascii: "E") {
            bytes = bytes.dropFirst()
            if bytes.first == UInt8(ascii: "-") || bytes.first == UInt8(ascii: "+") { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return nil }
        }
        guard bytes.isEmpty else { return nil }
        return Decimal(string: text, locale: Locale(identifier: "en_US_POSIX"))
    }
}

/// Floating-point values: numbers, or the strings "INF", "-INF" and "NaN" for what JSON cannot write.
public protocol ODataFloatingPoint: BinaryFloatingPoint, LosslessStringConvertible, Codable, ODataPrimitive {}

extension ODataFloatingPoint {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let value = try? container.decode(Self.self) {
            self = value
            return
        }
        let text = try container.decode(String.self)
        switch text {
        case "INF", "Infinity": self = .infinity
        case "-INF", "-Infinity": self = -.infinity
        case "NaN": self = .nan
        default:
            guard let value = Self(text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a number")
            }
            self = value
        }
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if isNaN {
            try container.encode("NaN")
        } else if isInfinite {
            try container.encode(self < 0 ? "-INF" : "INF")
        } else {
            try container.encode(self)
        }
    }
}

extension Double: ODataFloatingPoint {}
extension Float: ODataFloatingPoint {}

extension Date: ODataPrimitive {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let date = ODataDate.parse(text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not a date (expected \"/Date(ms)/\")")
        }
        self = date
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(ODataDate.format(self))
    }
}

extension UUID: ODataPrimitive {
    public init(odataFrom decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        guard let value = UUID(uuidString: text) else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "\"\(text)\" is not an Edm.Guid")
        }
        self = value
    }

    public func encodeOData(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(uuidString.lowercased())
    }
}

/// Carries an `ODataPrimitive` through `Codable` containers, which only know `Decodable`/`Encodable`.
struct ODataPrimitiveBox<Value: ODataPrimitive>: Codable {
    var value: Value

    init(_ value: Value) { self.value = value }

    init(from decoder: any Decoder) throws {
        value = try Value(odataFrom: decoder)
    }

    func encode(to encoder: any Encoder) throws {
        try value.encodeOData(to: encoder)
    }
}
