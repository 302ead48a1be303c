import Foundation

/// A JSON object: property names to values. What an untyped entity is.
public typealias JSONObject = [String: JSONValue]

/// Any JSON value, for payloads read without a model type.
///
/// OData V2 writes Int64 and Decimal values as strings, so they stay strings here;
/// whole numbers are kept apart from fractional ones so that `1` prints as `1`.
public enum JSONValue: Sendable, Hashable, Codable, CustomStringConvertible {
    case null
    case bool(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var values: [JSONValue] = []
            while !array.isAtEnd {
                values.append(try array.decode(JSONValue.self))
            }
            self = .array(values)
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            var values: JSONObject = [:]
            for key in object.allKeys {
                values[key.stringValue] = try object.decode(JSONValue.self, forKey: key)
            }
            self = .object(values)
            return
        }
        let single = try decoder.singleValueContainer()
        if single.decodeNil() {
            self = .null
        } else if let value = try? single.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? single.decode(Int64.self) {
            self = .integer(value)
        } else if let value = try? single.decode(Double.self) {
            self = .double(value)
        } else {
            self = .string(try single.decode(String.self))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .null:
            var single = encoder.singleValueContainer()
            try single.encodeNil()
        case .bool(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .integer(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .double(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .string(let value):
            var single = encoder.singleValueContainer()
            try single.encode(value)
        case .array(let values):
            var array = encoder.unkeyedContainer()
            for value in values { try array.encode(value) }
        case .object(let values):
            var object = encoder.container(keyedBy: AnyCodingKey.self)
            for key in values.keys.sorted() {
                try object.encode(values[key]!, forKey: AnyCodingKey(key))
            }
        }
    }

    // MARK: Reading values

    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = self { return object[key] }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let array) = self { return array }
        return nil
    }

    /// The value as text: strings as they are, numbers and booleans as JSON writes them.
    public var stringValue: String? {
        switch self {
        case .string(let value): return value
        case .integer(let value): return String(value)
        case .double(let value): return JSONValue.format(value)
        case .bool(let value): return value ? "true" : "false"
        default: return nil
        }
    }

    /// The value as a whole number, also from a string (the form of Edm.Int64).
    public var intValue: Int64? {
        switch self {
        case .integer(let value): return value
        case .double(let value): return value.rounded() == value ? Int64(exactly: value) : nil
        case .string(let value): return Int64(value)
        default: return nil
        }
    }

    /// The value as a date, from OData's `"\/Date(ms)\/"` form or ISO 8601.
    public var dateValue: Date? {
        if case .string(let value) = self { return ODataDate.parse(value) }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// Compact JSON text.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .integer(let value): return String(value)
        case .double(let value): return JSONValue.format(value)
        case .string(let value): return JSONValue.quote(value)
        case .array(let values): return "[" + values.map(\.description).joined(separator: ",") + "]"
        case .object(let values):
            let members = values.keys.sorted().map { JSONValue.quote($0) + ":" + values[$0]!.description }
            return "{" + members.joined(separator: ",") + "}"
        }
    }

    private static func format(_ value: Double) -> String {
        if value.rounded() == value, abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }

    private static func quote(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case _ where scalar.value < 0x20: out += String(format: "\\u%04x", scalar.value)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }
}

/// A coding key for any name, for objects whose keys are not known in advance.
struct AnyCodingKey: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }

    init(_ string: String) { stringValue = string }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { return nil }
}
