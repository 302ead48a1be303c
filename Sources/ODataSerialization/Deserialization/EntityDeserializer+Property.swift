import EDM

/// Bodies that update one property: `PUT Set(key)/Prop` with `{"Prop": value}` (verbose JSON,
/// optionally wrapped in `{"d": ...}`), and `PUT Set(key)/Prop/$value` with the raw value.
extension EntityDeserializer {
    public func propertyValue(from body: [UInt8], for property: Property) throws(PayloadError) -> EDMValue {
        let json = unwrapped(try parse(body, expecting: "{\"\(property.name)\": value}"), unlessNamedIn: nil)
        guard case .object(let object) = json else {
            throw PayloadError("The request body for property '\(property.name)' must be an object {\"\(property.name)\": value}, not \(json.kindName).",
                               propertyName: property.name)
        }
        for name in object.names where name != property.name {
            throw PayloadError("The request body updates property '\(property.name)'; '\(name)' is not expected in it.", propertyName: name)
        }
        guard let value = object[property.name] else {
            throw PayloadError("The request body must be {\"\(property.name)\": value}; '\(property.name)' is missing.",
                               propertyName: property.name)
        }
        return try PropertyValueDecoder.decode(value, for: property)
    }

    /// A raw `$value` body: the bytes themselves for Edm.Binary, otherwise UTF-8 text in the
    /// form `$value` answers with (`true`, `12.5`, `2009-11-01T12:00:00`, `PT13H20M`, a GUID).
    public func rawValue(from body: [UInt8], for property: Property) throws(PayloadError) -> EDMValue {
        if property.type == .binary {
            if let maxLength = property.maxLength, body.count > maxLength {
                throw PayloadError("Property '\(property.name)' is longer than its MaxLength of \(maxLength) (\(body.count) bytes).",
                                   propertyName: property.name)
            }
            return .binary(body)
        }
        if let (offset, reason) = UTF8Validation.firstInvalidOffset(in: body) {
            throw PayloadError("The request body is not valid UTF-8: \(reason) (at byte \(offset)).", propertyName: property.name)
        }
        let text = String(decoding: body, as: UTF8.self)
        if text.isEmpty && property.type != .string {
            throw PayloadError("Property '\(property.name)' expects an \(property.type.name) value, but the body is empty.",
                               propertyName: property.name)
        }
        return try PropertyValueDecoder.decodeText(text, for: property)
    }
}
