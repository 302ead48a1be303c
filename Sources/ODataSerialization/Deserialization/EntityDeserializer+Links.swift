/// The body of `POST/PUT Set(key)/$links/Nav`: `{"uri": "http://host/service/Set(key)"}`
/// (MS-ODATA 2.2.6.3.11).
extension EntityDeserializer {
    public func link(from body: [UInt8]) throws(PayloadError) -> EntityReference {
        let json = unwrapped(try parse(body, expecting: "{\"uri\": \"...\"} naming the entity to link"), unlessNamedIn: nil)
        guard case .object(let object) = json else {
            throw PayloadError("The $links request body must be an object {\"uri\": \"...\"}, not \(json.kindName).")
        }
        for name in object.names where name != "uri" && name != "__metadata" {
            throw PayloadError("The $links request body must be {\"uri\": \"...\"}; '\(name)' is not expected.", propertyName: name)
        }
        guard let value = object["uri"] else {
            throw PayloadError("The $links request body must be {\"uri\": \"...\"}; 'uri' is missing.", propertyName: "uri")
        }
        guard case .string(let uri) = value else {
            throw PayloadError("'uri' in the $links request body must be a string, not \(value.kindName).", propertyName: "uri")
        }
        return try EntityReference(uri: uri, serviceRoot: serviceRoot)
    }
}
