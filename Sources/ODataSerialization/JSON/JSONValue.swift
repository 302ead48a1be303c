/// A parsed JSON document (RFC 8259), as request bodies arrive.
///
/// Numbers keep their literal text so that an Int64 or a Decimal beyond a Double's 53 bits of
/// precision survives exactly; objects keep their members in the order they were written.
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The JSON name of the value's kind, for error messages ("expected a string, found an array").
    public var kindName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }
}

/// A JSON number, exactly as written: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible {
    /// The literal text from the document, already checked against the RFC 8259 grammar.
    public let literal: String

    /// Trusts the caller to pass a valid JSON number literal; the parser is the usual source.
    public init(literal: String) {
        self.literal = literal
    }

    public var description: String { literal }

    /// True when the literal has neither a fraction nor an exponent.
    public var isIntegerLiteral: Bool {
        !literal.utf8.contains { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") || $0 == UInt8(ascii: "E") }
    }

    /// The value as an Int64 when the literal is an integer that fits; nil otherwise.
    public var int64Value: Int64? {
        isIntegerLiteral ? Int64(literal) : nil
    }

    /// The nearest Double (may round, and is infinite when the literal overflows).
    public var doubleValue: Double {
        Double(literal) ?? .nan
    }
}

/// A JSON object: its members in document order. The parser rejects duplicate names, so a
/// name identifies at most one member.
public struct JSONObject: Sendable, Equatable {
    public struct Member: Sendable, Equatable {
        public let name: String
        public let value: JSONValue

        public init(name: String, value: JSONValue) {
            self.name = name
            self.value = value
        }
    }

    public let members: [Member]

    public init(_ members: [Member]) {
        self.members = members
    }

    public init(_ pairs: KeyValuePairs<String, JSONValue>) {
        self.members = pairs.map { Member(name: $0.key, value: $0.value) }
    }

    public var count: Int { members.count }

    public var isEmpty: Bool { members.isEmpty }

    public var names: [String] { members.map(\.name) }

    /// The value of the member with that name. A linear scan: entity bodies have few members.
    public subscript(name: String) -> JSONValue? {
        members.first { $0.name == name }?.value
    }
}
