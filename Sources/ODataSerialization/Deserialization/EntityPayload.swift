import EDM
import ODataURI

/// A verbose-JSON entity body, checked against its entity type: the structural values that
/// were sent, and what was said about each navigation property (bindings and deep inserts).
public struct EntityPayload: Sendable {
    public let entityType: EntityType
    /// The structural properties present in the body, by name, each already valid for its
    /// property's type and facets. Properties left out of the body are absent, which lets
    /// MERGE tell "not sent" from "sent as null".
    public var values: [String: EDMValue]
    /// Navigation properties that the body binds or fills inline, in body order.
    public var navigations: [NavigationPayload]
    /// `__metadata.uri`, when the body carried one (a client echoing an entity it read).
    public var metadataURI: String?
    /// `__metadata.etag`, when the body carried one.
    public var metadataETag: String?

    public init(entityType: EntityType, values: [String: EDMValue] = [:], navigations: [NavigationPayload] = [],
                metadataURI: String? = nil, metadataETag: String? = nil) {
        self.entityType = entityType
        self.values = values
        self.navigations = navigations
        self.metadataURI = metadataURI
        self.metadataETag = metadataETag
    }

    public func value(of propertyName: String) -> EDMValue? { values[propertyName] }

    public func navigation(named name: String) -> NavigationPayload? {
        navigations.first { $0.property.name == name }
    }

    /// Checks that key values present in the body agree with the key the request URI names
    /// (`PUT Set(1)` with `"id": 2` in the body is a contradiction, not an instruction).
    public func checkKey(matches uriKey: [String: EDMValue]) throws(PayloadError) {
        for key in entityType.keyProperties {
            guard let sent = values[key.name], let addressed = uriKey[key.name] else { continue }
            guard EntityPayload.sameKeyValue(sent, addressed) else {
                throw PayloadError("Key property '\(key.name)' is \(EDMValueDescription.describe(sent)) in the body but \(EDMValueDescription.describe(addressed)) in the request URI.",
                                   propertyName: key.name)
            }
        }
    }
}

extension EntityPayload {
    /// Equal values; decimals compare by value, since a body may write `1.50` where the URI has `1.5M`.
    static func sameKeyValue(_ a: EDMValue, _ b: EDMValue) -> Bool {
        if case .decimal(let x) = a, case .decimal(let y) = b {
            return LiteralParser.canonicalDecimal(Substring(x)) == LiteralParser.canonicalDecimal(Substring(y))
        }
        return a == b
    }
}

/// What the body says about one navigation property.
public struct NavigationPayload: Sendable {
    public enum Content: Sendable {
        /// `"Nav": null`, on a to-one navigation: remove the link.
        case null
        /// A to-one navigation: bind an existing entity or insert a new one.
        case single(RelatedEntity)
        /// A to-many navigation (`[...]` or `{"results": [...]}`): each element bound or inserted.
        case collection([RelatedEntity])
    }

    public let property: NavigationProperty
    public let content: Content

    public init(property: NavigationProperty, content: Content) {
        self.property = property
        self.content = content
    }

    /// The related entities named or inlined, whatever the multiplicity.
    public var relatedEntities: [RelatedEntity] {
        switch content {
        case .null: return []
        case .single(let entity): return [entity]
        case .collection(let entities): return entities
        }
    }
}

/// One element of a navigation property in a body.
public enum RelatedEntity: Sendable {
    /// `{"__metadata": {"uri": "Set(key)"}}`: link to an entity that already exists.
    case reference(EntityReference)
    /// A new entity of the navigation's target type, created in the same transaction.
    case inline(EntityPayload)
}

/// Short, quotable renderings of values for error messages.
enum EDMValueDescription {
    static func describe(_ value: EDMValue) -> String {
        switch value {
        case .null: return "null"
        case .boolean(let b): return String(b)
        case .integer(let i): return String(i)
        case .double(let d): return String(d)
        case .decimal(let text): return text
        case .string(let s): return "'" + s + "'"
        case .binary(let bytes): return "\(bytes.count) bytes"
        case .dateTime(let ms): return CivilTime(millisecondsSinceEpoch: ms).isoText
        case .dateTimeOffset(let ms, let offset): return CivilTime(millisecondsSinceEpoch: ms).isoText + "Z (offset \(offset) minutes)"
        case .time(let ms): return "\(ms) ms after midnight"
        case .guid(let g): return g
        }
    }
}
