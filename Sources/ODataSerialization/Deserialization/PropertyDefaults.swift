import EDM

/// What a property holds when a create or a replace (PUT) leaves it out: the schema's
/// DefaultValue, else null where the property is nullable. Nil means it has neither, and the
/// body must give the property.
extension EntityDeserializer {
    public static func defaultValue(for property: Property) throws(PayloadError) -> EDMValue? {
        if let text = property.defaultValue {
            do {
                return try PropertyValueDecoder.decodeText(text, for: property)
            } catch {
                throw PayloadError("The schema's DefaultValue '\(text)' of property '\(property.name)' is not a valid \(property.type.name).",
                                   propertyName: property.name)
            }
        }
        return property.isNullable ? .null : nil
    }
}
