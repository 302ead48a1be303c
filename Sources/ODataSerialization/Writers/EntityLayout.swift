import EDM
import ODataStore

/// The parts of an entity type's JSON that do not depend on the row: `"name":` for each
/// property, the type name, each navigation property's name. Built once per model, so that
/// writing an entity copies bytes rather than escaping the same names for every row.
/// Immutable once made.
final class EntityLayout: Sendable {
    struct Field {
        /// `,"name":` within `fragments`.
        let start: Int
        let end: Int
        let columnIndex: Int
        let type: PrimitiveType
    }

    struct Navigation {
        let property: NavigationProperty
        /// The property's `id`, by which a row's expansions are found: read as a value, where
        /// reading `property` takes a reference.
        let propertyID: NavigationProperty.ID
        /// `,"Nav":` within `fragments`.
        let field: Range<Int>
        /// `/Nav`, escaped, for deferred links.
        let suffix: Range<Int>
    }

    /// Every fragment, back to back.
    let fragments: [UInt8]
    /// `,"type":"Namespace.Type"`
    let typeField: Range<Int>
    let properties: [Field]
    let navigations: [Navigation]
    /// For a type whose key is one Int32 (or smaller) property: that key's column and `Set(`,
    /// so that an entity's URI is written from the row without building its key literal.
    let integerKey: (column: Int, setPrefix: Range<Int>)?
    /// What an entity writes of bounded size after its URI, but for the URI's copies in
    /// deferred links (`boundedBytes(uriLength:)`): the closing quote, the type, the ETag, each
    /// property's name with room for a value of bounded size, each navigation property's name
    /// with a deferred link around its suffix, and the closing brace.
    private let boundedBytesBesideURIs: Int

    /// Room for everything of bounded size that an entity writes after its URI of `uriLength`
    /// bytes (`VerboseJSONSerializer.entity`).
    @inline(__always)
    func boundedBytes(uriLength: Int) -> Int { boundedBytesBesideURIs + uriLength * navigations.count }

    /// `W/"<digits>"` as a JSON string field, around the digest's 16 digits: named once, for
    /// the writer and for the bound it reserves.
    static var eTagOpening: StaticString { ",\"etag\":\"W/\\\"" }
    static var eTagClosing: StaticString { "\\\"\"" }
    /// A deferred link, around the entity's URI and the navigation property's suffix.
    static var deferredOpening: StaticString { "{\"__deferred\":{\"uri\":\"" }
    static var deferredClosing: StaticString { "\"}}" }

    init(_ type: EntityType) {
        var json = JSONWriter()
        func fragment(_ write: (inout JSONWriter) -> Void) -> Range<Int> {
            let start = json.count
            write(&json)
            return start..<json.count
        }
        typeField = fragment { $0.raw(",\"type\":"); $0.string(type.qualifiedName) }
        properties = type.properties.map { property in
            let range = fragment { $0.raw(","); $0.key(property.name) }
            return Field(start: range.lowerBound, end: range.upperBound, columnIndex: property.columnIndex, type: property.type)
        }
        navigations = type.navigationProperties.map { nav in
            let field = fragment { $0.raw(","); $0.key(nav.name) }
            let suffix = fragment { json in
                json.byte(UInt8(ascii: "/"))
                json.appendEscaped(nav.name)
            }
            return Navigation(property: nav, propertyID: nav.id, field: field, suffix: suffix)
        }
        let keys = type.keyProperties
        if keys.count == 1, keys[0].type.isIntegral, keys[0].type != .int64, let set = type.entitySet {
            integerKey = (keys[0].columnIndex, fragment { $0.text(set.name); $0.byte(UInt8(ascii: "(")) })
        } else {
            integerKey = nil
        }
        let eTag = Self.eTagOpening.utf8CodeUnitCount + 16 + Self.eTagClosing.utf8CodeUnitCount
        let deferredLink = Self.deferredOpening.utf8CodeUnitCount + Self.deferredClosing.utf8CodeUnitCount
        boundedBytesBesideURIs = 1 + typeField.count + eTag + 1
            + properties.reduce(0) { $0 + ($1.end - $1.start) + ReservedBytes.storedColumnBound }
            + navigations.reduce(0) { $0 + $1.field.count + deferredLink + $1.suffix.count } + 1
        fragments = json.bytes
    }
}

/// The layouts of every entity type of a model.
public final class EntityLayouts: Sendable {
    /// By `EntityType.index`, with the type each was built for.
    private let layouts: [(type: ObjectIdentifier, layout: EntityLayout)]

    public init(model: EntityModel) {
        layouts = model.entityTypes.map { (ObjectIdentifier($0), EntityLayout($0)) }
    }

    @inline(__always)
    func withLayout<Entity: EntityColumns, Result>(for entity: Entity, _ body: (EntityLayout) throws -> Result) rethrows -> Result {
        // Types come from the model the layouts were built from; one from another model gets
        // a layout of its own.
        let index = entity.type.index
        guard index < layouts.count, layouts[index].type == ObjectIdentifier(entity.type) else { return try body(EntityLayout(entity.type)) }
        return try body(layouts[index].layout)
    }
}
