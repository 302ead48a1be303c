/// The header lines of a MIME part or of an operation inside a batch: kept in order and with
/// their original spelling, looked up without regard to case (RFC 9110 section 5.1).
public struct BatchHeaders: Sendable, Equatable, Sequence {
    public struct Field: Sendable, Equatable {
        public let name: String
        public let value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public private(set) var fields: [Field]

    public init(_ fields: [Field] = []) {
        self.fields = fields
    }

    public init(_ pairs: KeyValuePairs<String, String>) {
        self.fields = pairs.map { Field(name: $0.key, value: $0.value) }
    }

    /// The first value of the named header.
    public subscript(name: String) -> String? {
        let lower = name.lowercased()
        return fields.first { $0.name.lowercased() == lower }?.value
    }

    public func contains(_ name: String) -> Bool { self[name] != nil }

    public mutating func append(_ name: String, _ value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Replaces every field of that name by one with this value (appended when absent).
    public mutating func set(_ name: String, _ value: String) {
        let lower = name.lowercased()
        var replaced = false
        fields = fields.compactMap { field in
            guard field.name.lowercased() == lower else { return field }
            if replaced { return nil }
            replaced = true
            return Field(name: field.name, value: value)
        }
        if !replaced { fields.append(Field(name: name, value: value)) }
    }

    public mutating func remove(_ name: String) {
        let lower = name.lowercased()
        fields.removeAll { $0.name.lowercased() == lower }
    }

    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }
}
