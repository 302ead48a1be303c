import EDM

/// Parses the key predicate of `Set(...)`: `1` for a single key, `a=1,b='x'` for any key.
enum KeyPredicateParser {
    static func parse(_ text: Substring, for type: EntityType, segment: String) throws(URIError) -> [EDMValue] {
        let keys = type.keyProperties
        if keys.count == 1, let value = plainInteger(text.utf8, of: keys[0].type) { return [value] }
        let parts = LiteralParser.splitOutsideQuotes(text)
        if keys.count == 1, parts.count == 1, !isNamed(parts[0], keys[0].name) {
            return [try typed(String(parts[0]), keys[0], segment: segment)]
        }
        guard parts.count == keys.count else {
            throw .badRequest("the key predicate of '\(segment)' has \(parts.count) value(s); \(type.name) has a key of \(keys.count): \(keys.map(\.name).joined(separator: ", "))")
        }
        var values: [EDMValue?] = Array(repeating: nil, count: keys.count)
        for part in parts {
            guard let equals = part.utf8.firstIndex(of: UInt8(ascii: "=")) else {
                throw .badRequest("the key predicate of '\(segment)' must name each key property (name=value)")
            }
            let name = part[..<equals].trimmingSpaces
            guard let index = keys.firstIndex(where: { $0.name == name }) else {
                throw .badRequest("'\(name)' in the key predicate of '\(segment)' is not a key property of \(type.name)")
            }
            guard values[index] == nil else { throw .badRequest("key property '\(name)' appears twice in '\(segment)'") }
            values[index] = try typed(String(part[part.index(after: equals)...].trimmingSpaces), keys[index], segment: segment)
        }
        return values.map { $0! }
    }

    /// `Set(7)` for an integer key, the most frequent predicate, read straight from its digits:
    /// the general path (its split, its copies, `Int64.init`) made a `Person(n)` with a new key
    /// about 2,200 instructions dearer (callgrind). Nil for anything else (signs, suffixes, names,
    /// 19 digits or more), which takes the general path and gets the same value or error as ever.
    static func plainInteger(_ text: some Collection<UInt8>, of type: PrimitiveType) -> EDMValue? {
        guard let range = type.integerRange, !text.isEmpty, text.count < 19 else { return nil }
        var value: Int64 = 0
        for byte in text {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int64(byte - UInt8(ascii: "0"))
        }
        return range.contains(value) ? .integer(value) : nil
    }

    /// Searched as bytes: a Character search segments graphemes, and this runs for every key
    /// lookup whose target is not in the parse cache (`Person(n)` over a large set).
    private static func isNamed(_ part: Substring, _ name: String) -> Bool {
        guard part.utf8.first != UInt8(ascii: "'"), let equals = part.utf8.firstIndex(of: UInt8(ascii: "=")) else { return false }
        return part[..<equals].trimmingSpaces == name
    }

    private static func typed(_ text: String, _ key: Property, segment: String) throws(URIError) -> EDMValue {
        let literal: ExpressionLiteral?
        do {
            literal = try LiteralParser.scan(text)
        } catch {
            throw .badRequest("invalid key in '\(segment)': '\(text)' is not a valid \(key.type.name) literal for \(key.name): \(error.message)")
        }
        guard let literal else { throw .badRequest("invalid key in '\(segment)': a key value cannot be null") }
        guard let value = LiteralParser.value(of: literal, as: key.type) else {
            throw .badRequest("invalid key in '\(segment)': '\(text)' is not a valid \(key.type.name) literal for \(key.name): it is of type \(literal.type.name)")
        }
        return value
    }
}

