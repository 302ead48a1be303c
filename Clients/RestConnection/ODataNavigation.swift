/// A navigation property's value as verbose JSON writes it: the related entity or entities when
/// expanded (a bare array in 1.0, `{"results":[...]}` in 2.0), `{"__deferred":{"uri":...}}`
/// when not, or null when an expanded to-one has no entity.
public enum ODataNavigation<Value: Decodable>: Decodable {
    case expanded(Value)
    case deferred(uri: String?)
    case null

    public var expandedValue: Value? {
        if case .expanded(let value) = self { return value }
        return nil
    }

    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), single.decodeNil() {
            self = .null
            return
        }
        if let object = try? decoder.container(keyedBy: AnyCodingKey.self) {
            let deferredKey = AnyCodingKey("__deferred")
            if object.contains(deferredKey) {
                let deferred = try object.decode(JSONValue.self, forKey: deferredKey)
                self = .deferred(uri: deferred["uri"]?.stringValue)
                return
            }
        }
        self = .expanded(try Value(from: decoder))
    }
}

/// An expanded collection in either version's shape: `[...]` (1.0) or `{"results":[...]}` (2.0).
struct ODataExpandedCollection<Element: Decodable>: Decodable {
    var elements: [Element]

    init(from decoder: any Decoder) throws {
        if var array = try? decoder.unkeyedContainer() {
            var elements: [Element] = []
            if let count = array.count { elements.reserveCapacity(count) }
            while !array.isAtEnd { elements.append(try array.decode(Element.self)) }
            self.elements = elements
        } else {
            let object = try decoder.container(keyedBy: AnyCodingKey.self)
            elements = try object.decode([Element].self, forKey: AnyCodingKey("results"))
        }
    }
}
