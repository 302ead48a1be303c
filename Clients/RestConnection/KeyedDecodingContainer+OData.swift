// Reading entity properties in OData's JSON forms, for model types (generated or written by hand).

extension KeyedDecodingContainer {
    /// A property that must be present and not null, read in OData's form of its type.
    public func decodeOData<Value: ODataPrimitive>(_ type: Value.Type, forKey key: Key) throws -> Value {
        try decode(ODataPrimitiveBox<Value>.self, forKey: key).value
    }

    /// A property that may be absent or null.
    public func decodeODataIfPresent<Value: ODataPrimitive>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        try decodeIfPresent(ODataPrimitiveBox<Value>.self, forKey: key)?.value
    }

    /// A to-one navigation property: the entity when expanded; nil when deferred, null or absent.
    public func decodeExpanded<Value: Decodable>(_ type: Value.Type, forKey key: Key) throws -> Value? {
        guard contains(key) else { return nil }
        return try decode(ODataNavigation<Value>.self, forKey: key).expandedValue
    }

    /// A to-many navigation property: the entities when expanded, in either version's shape;
    /// nil when deferred, null or absent.
    public func decodeExpandedCollection<Element: Decodable>(_ type: Element.Type, forKey key: Key) throws -> [Element]? {
        guard contains(key) else { return nil }
        return try decode(ODataNavigation<ODataExpandedCollection<Element>>.self, forKey: key).expandedValue?.elements
    }
}

extension KeyedEncodingContainer {
    /// Writes a property in OData's form of its type.
    public mutating func encodeOData<Value: ODataPrimitive>(_ value: Value, forKey key: Key) throws {
        try encode(ODataPrimitiveBox(value), forKey: key)
    }

    /// Writes an optional property, as null when it is nil (so that an update clears it).
    public mutating func encodeOData<Value: ODataPrimitive>(_ value: Value?, forKey key: Key) throws {
        if let value {
            try encode(ODataPrimitiveBox(value), forKey: key)
        } else {
            try encodeNil(forKey: key)
        }
    }
}
