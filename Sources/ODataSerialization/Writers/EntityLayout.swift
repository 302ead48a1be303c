import EDM

/// The parts of an entity type's JSON that do not depend on the row: `"name":` for each
/// property, the type name, each navigation property's name. Built once per model, so that
/// writing an entity copies bytes rather than escaping the same names for every row, and its
/// field list holds no references, so the per-row loop does no reference counting.
final class EntityLayout: @unchecked Sendable {
    struct Field {
        /// `,"name":` within `bytes`.
        let start: Int
        let end: Int
        let columnIndex: Int
        let type: PrimitiveType
    }

    /// Every fragment, back to back. Memory of its own rather than an array: reading an array
    /// of a class instance lends it through a closure that retained and released its storage
    /// for every entity written.
    let fragments: UnsafeBufferPointer<UInt8>
    /// `,"type":"Namespace.Type"`
    let typeField: Range<Int>
    let properties: [Field]
    /// The type's navigation properties, read here rather than from the type: a `let` of this
    /// module needs no runtime exclusivity check on each entity written.
    let navigationProperties: [NavigationProperty]
    /// `,"Nav":` for each navigation property.
    let navigations: [Range<Int>]
    /// `/Nav`, escaped, for deferred links.
    let navigationSuffixes: [Range<Int>]
    /// For a type whose key is one Int32 (or smaller) property: that key's column and `Set(`,
    /// so that an entity's URI is written from the row without building its key literal.
    let integerKey: (column: Int, setPrefix: Range<Int>)?

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
        navigationProperties = type.navigationProperties
        navigations = type.navigationProperties.map { nav in fragment { $0.raw(","); $0.key(nav.name) } }
        navigationSuffixes = type.navigationProperties.map { nav in
            fragment { json in
                json.byte(UInt8(ascii: "/"))
                var name = nav.name
                name.withUTF8 { json.appendEscaped($0) }
            }
        }
        let keys = type.keyProperties
        if keys.count == 1, keys[0].type.isIntegral, keys[0].type != .int64, let set = type.entitySet {
            integerKey = (keys[0].columnIndex, fragment { $0.text(set.name); $0.byte(UInt8(ascii: "(")) })
        } else {
            integerKey = nil
        }
        let storage = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: json.count)
        _ = storage.initialize(from: json.bytes)
        fragments = UnsafeBufferPointer(storage)
    }

    deinit { fragments.deallocate() }
}

/// The layouts of every entity type of a model.
public final class EntityLayouts: @unchecked Sendable {
    /// By `EntityType.index`, with the type each was built for. Held unmanaged (retained in
    /// init, released in deinit) and lent by `withLayout`: taking a layout out of the array
    /// retained and released it for every entity written.
    private let layouts: [(type: ObjectIdentifier, layout: Unmanaged<EntityLayout>)]

    public init(model: EntityModel) {
        layouts = model.entityTypes.map { (ObjectIdentifier($0), Unmanaged.passRetained(EntityLayout($0))) }
    }

    deinit { layouts.forEach { $0.layout.release() } }

    @inline(__always)
    func withLayout<Result>(for type: EntityType, _ body: (EntityLayout) -> Result) -> Result {
        // Types come from the model the layouts were built from; one from another model gets
        // a layout of its own.
        let index = type.index
        guard index < layouts.count, layouts[index].type == ObjectIdentifier(type) else { return body(EntityLayout(type)) }
        return layouts[index].layout._withUnsafeGuaranteedRef(body)
    }
}
