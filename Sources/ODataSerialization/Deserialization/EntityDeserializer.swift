import EDM

/// Reads verbose-JSON (OData V2) request bodies into typed payloads, checked against the model.
///
/// Every problem is a `PayloadError` whose message names the property and what is wrong; a
/// body is either wholly valid or rejected, so the processor never writes half of one.
public struct EntityDeserializer: Sendable {
    /// The service root URIs in bodies are relative to: `http://host:port/CarDealer.svc/` or
    /// just `/CarDealer.svc/`.
    public let serviceRoot: String
    /// The deepest nesting of JSON arrays and objects accepted (deep inserts nest).
    public let maximumDepth: Int

    public init(serviceRoot: String, maximumDepth: Int = JSONParser.defaultMaximumDepth) {
        self.serviceRoot = serviceRoot
        self.maximumDepth = maximumDepth
    }

    /// The body of `POST Set`, `PUT/MERGE/PATCH Set(key)` and `POST Set(key)/Nav`.
    public func entity(from body: [UInt8], of type: EntityType) throws(PayloadError) -> EntityPayload {
        let json = try parse(body, expecting: "a JSON object describing an entity of type \(type.qualifiedName)")
        return try entity(from: json, of: type)
    }

    /// An entity already parsed as JSON (a batch operation's body, an inline entity).
    public func entity(from json: JSONValue, of type: EntityType) throws(PayloadError) -> EntityPayload {
        guard case .object(let object) = unwrapped(json, unlessNamedIn: type) else {
            throw PayloadError("The request body must be a JSON object describing an entity of type \(type.qualifiedName), not \(json.kindName).")
        }
        var payload = EntityPayload(entityType: type)
        for member in object.members {
            if member.name == "__metadata" {
                let metadata = try self.metadata(member.value, of: type)
                payload.metadataURI = metadata.uri
                payload.metadataETag = metadata.etag
            } else if let property = type.property(named: member.name) {
                // A client may send a null key it expects the store to assign; leaving it out
                // says the same thing without breaking the key's Nullable="false".
                if member.value.isNull && property.isStoreGenerated { continue }
                payload.values[property.name] = try PropertyValueDecoder.decode(member.value, for: property)
            } else if let navigation = type.navigationProperty(named: member.name) {
                if let content = try self.navigation(member.value, of: navigation) {
                    payload.navigations.append(NavigationPayload(property: navigation, content: content))
                }
            } else {
                switch member.value {
                case .object, .array:
                    throw PayloadError("'\(member.name)' is neither a property nor a navigation property of type \(type.qualifiedName).",
                                       propertyName: member.name)
                default:
                    throw PayloadError("Property '\(member.name)' does not exist on type \(type.qualifiedName).", propertyName: member.name)
                }
            }
        }
        return payload
    }

    // MARK: Parts of an entity

    private struct Metadata {
        var uri: String?
        var etag: String?
    }

    /// `__metadata`: only `type` is checked (it must be the type the request addresses; the
    /// model has no inheritance) and `uri`/`etag` kept; the rest (`media_src`, ...) is ignored.
    private func metadata(_ json: JSONValue, of type: EntityType) throws(PayloadError) -> Metadata {
        guard case .object(let object) = json else {
            throw PayloadError("__metadata must be an object, not \(json.kindName).", propertyName: "__metadata")
        }
        var metadata = Metadata()
        for member in object.members {
            switch member.name {
            case "type", "uri", "etag":
                guard case .string(let text) = member.value else {
                    throw PayloadError("__metadata.\(member.name) must be a string, not \(member.value.kindName).", propertyName: "__metadata")
                }
                if member.name == "type" && text != type.qualifiedName {
                    throw PayloadError("__metadata.type '\(text)' does not match the entity type \(type.qualifiedName) of the request.",
                                       propertyName: "__metadata")
                }
                if member.name == "uri" { metadata.uri = text }
                if member.name == "etag" { metadata.etag = text }
            default:
                continue
            }
        }
        return metadata
    }

    /// The value of a navigation property: nil when it says nothing (`{"__deferred": ...}`, as
    /// in an entity read back and sent again).
    private func navigation(_ json: JSONValue, of navigation: NavigationProperty) throws(PayloadError) -> NavigationPayload.Content? {
        let name = navigation.name
        switch json {
        case .object(let object) where object.names == ["__deferred"]:
            return nil
        case .null:
            guard !navigation.isCollection else {
                throw PayloadError("Navigation property '\(name)' is a collection and cannot be null; send an array or leave it out.",
                                   propertyName: name)
            }
            return .null
        case .object(let object):
            guard navigation.isCollection else {
                return .single(try related(json, of: navigation, item: nil))
            }
            guard let results = object["results"], case .array(let elements) = results else {
                throw PayloadError("Navigation property '\(name)' is a collection; expected an array or {\"results\": [...]}.",
                                   propertyName: name)
            }
            return .collection(try relatedCollection(elements, of: navigation))
        case .array(let elements):
            guard navigation.isCollection else {
                throw PayloadError("Navigation property '\(name)' refers to a single \(navigation.target.qualifiedName); expected an object, not an array.",
                                   propertyName: name)
            }
            return .collection(try relatedCollection(elements, of: navigation))
        default:
            throw PayloadError("Navigation property '\(name)' expects \(navigation.isCollection ? "an array of entities" : "an entity object"), not \(json.kindName).",
                               propertyName: name)
        }
    }

    private func relatedCollection(_ elements: [JSONValue], of navigation: NavigationProperty) throws(PayloadError) -> [RelatedEntity] {
        var related: [RelatedEntity] = []
        related.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            related.append(try self.related(element, of: navigation, item: index))
        }
        return related
    }

    /// One element: a binding when it is only `{"__metadata": {"uri": ...}}`, otherwise a new
    /// entity of the navigation's target type (deep insert).
    private func related(_ json: JSONValue, of navigation: NavigationProperty, item: Int?) throws(PayloadError) -> RelatedEntity {
        guard case .object(let object) = json else {
            throw PayloadError("Navigation property '\(navigation.name)' expects entity objects, not \(json.kindName).",
                               propertyName: navigation.name)
        }
        do throws(PayloadError) {
            if let metadataJSON = object["__metadata"] {
                let metadata = try self.metadata(metadataJSON, of: navigation.target)
                if let uri = metadata.uri {
                    guard object.count == 1 else {
                        throw PayloadError("An entity bound by __metadata.uri cannot carry properties as well; deep update is not supported.")
                    }
                    return .reference(try EntityReference(uri: uri, serviceRoot: serviceRoot))
                }
            }
            return .inline(try entity(from: json, of: navigation.target))
        } catch {
            throw error.nested(in: navigation.name, item: item)
        }
    }

    // MARK: Shared

    /// Parses a body as JSON, with the messages a client should see.
    func parse(_ body: [UInt8], expecting what: String) throws(PayloadError) -> JSONValue {
        guard body.contains(where: { !isJSONWhitespace($0) }) else {
            throw PayloadError("The request body is empty; expected \(what).")
        }
        do {
            return try JSONParser.parse(body, maximumDepth: maximumDepth)
        } catch {
            throw PayloadError.malformed(error)
        }
    }

    /// Some V2 clients wrap request bodies in `{"d": ...}` as responses are; accept that when
    /// the type has no member called "d" of its own.
    func unwrapped(_ json: JSONValue, unlessNamedIn type: EntityType?) -> JSONValue {
        guard case .object(let object) = json, object.names == ["d"], let inner = object["d"], case .object = inner else { return json }
        if let type, type.property(named: "d") != nil || type.navigationProperty(named: "d") != nil { return json }
        return inner
    }

    private func isJSONWhitespace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
