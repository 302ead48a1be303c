import EDM
import ODataStore
import ODataURI

/// Writes responses in the verbose JSON format of OData V2 (MS-ODATA 2.2.6.3): everything
/// inside `d`, `__metadata` on each entity, `__deferred` for navigation properties not expanded.
public struct VerboseJSONSerializer {
    public let uris: EntityURIs
    public let version: ResponseVersion
    /// Whether entities carry their ETag (`EntityTag`) in `__metadata`.
    public let writesETags: Bool

    private let layouts: EntityLayouts

    public init(uris: EntityURIs, version: ResponseVersion, layouts: EntityLayouts, writesETags: Bool = false) {
        self.uris = uris
        self.version = version
        self.layouts = layouts
        self.writesETags = writesETags
    }

    /// The service root as JSON string content.
    private var rootJSON: [UInt8] { uris.serviceRootJSON }

    /// `"<root><Set(key)>"`: the key predicate is percent-encoded, so it needs no JSON escape.
    private func writeURI(_ relative: String, into json: inout JSONWriter) {
        json.byte(UInt8(ascii: "\""))
        json.appendVerbatim(rootJSON)
        json.text(relative)
        json.byte(UInt8(ascii: "\""))
    }

    /// `<root><Set(key)>` as JSON string content, straight from the row when the key is an
    /// integer; returns where it was written, so that deferred links can copy it.
    private func writeEntityURI(_ entity: EntityRow, layout: EntityLayout, fragments: [UInt8],
                                                      into json: inout JSONWriter) -> Range<Int> {
        let start = json.count
        var integerKey: Int64?
        if let key = layout.integerKey {
            entity.withColumn(key.column) { column in if case .integer(let value) = column { integerKey = value } }
        }
        if let integerKey, let setPrefix = layout.integerKey?.setPrefix {
            var room = json.reserve(rootJSON.count + setPrefix.count + 21)
            room.put(rootJSON)
            room.put(fragments, setPrefix)
            room.putInteger(integerKey)
            room.put(UInt8(ascii: ")"))
            json.commit(room)
        } else {
            json.appendVerbatim(rootJSON)
            json.text(uris.relativeURI(type: entity.type, key: entity.keyValues))
        }
        return start..<json.count
    }

    // MARK: - Documents

    /// `{"d": {entity}}`, from a row whose tag digest (`EntityColumns.tagDigest`) the caller has
    /// already computed for its ETag header: it is not computed again. The children the row
    /// lends are written as they come; a failure to read one is thrown.
    public func entityDocument(_ row: EntityRow, select: SelectNode?, tagDigest: UInt64) throws -> SerializedBytes {
        // Into the thread's spare block, as a page is: an entity with its expansions outgrew a
        // first 1 KiB buffer (the blog's `$expand` is 1.8 KB), and its next one, past glibc's
        // per-thread cache, cost a malloc that consolidated the fast bins first.
        var json = JSONWriter(capacity: SpareBlock.size)
        json.raw("{\"d\":")
        try entity(row, select: select, into: &json, tagDigest: tagDigest)
        json.raw("}")
        return json.serialized()
    }

    /// How a collection read in place ends: known only after its last row.
    public struct CollectionEnd {
        public var version: ResponseVersion
        public var count: Int?
        public var next: String?

        public init(version: ResponseVersion, count: Int?, next: String?) {
            self.version = version
            self.count = count
            self.next = next
        }
    }

    /// A collection document written entity by entity as the caller lends them
    /// (`RowCollectionDocument`): `{"d": [...]}` in 1.0, `{"d": {"results": [...], "__count": "n",
    /// "__next": "..."}}` in 2.0.
    public func rowCollection(select: SelectNode?) -> RowCollectionDocument {
        RowCollectionDocument(serializer: self, select: select)
    }

    /// The `d` of a collection: the bare array in 1.0; in 2.0 wrapped in `results` with
    /// `__count` and `__next` beside it.
    private func collection(count: Int?, next: String?, into json: inout JSONWriter, elements: (inout JSONWriter) throws -> Void) rethrows {
        json.raw("{\"d\":")
        if version == .v1 {
            try elements(&json)
        } else {
            json.raw("{\"results\":")
            try elements(&json)
            collectionTail(count: count, next: next, into: &json)
        }
        json.raw("}")
    }

    /// `,"__count":"n","__next":"..."}`: what follows the results of a 2.0 collection.
    fileprivate func collectionTail(count: Int?, next: String?, into json: inout JSONWriter) {
        if let count {
            json.raw(",\"__count\":\"")
            json.integer(Int64(count))
            json.raw("\"")
        }
        if let next {
            json.raw(",\"__next\":")
            json.string(next)
        }
        json.raw("}")
    }

    /// `{"d": {"name": value}}` for `Set(key)/Prop` (MS-ODATA 2.2.6.3.8).
    public func propertyDocument(_ property: Property, value: EDMValue) -> SerializedBytes {
        var json = JSONWriter()
        json.raw("{\"d\":{")
        json.key(property.name)
        json.value(value, type: property.type)
        json.raw("}}")
        return json.serialized()
    }

    /// `{"d": {"uri": "..."}}` for a single link, or a collection of them (MS-ODATA 2.2.6.3.10),
    /// of the entities at `relativeURIs` (below the service root).
    public func linksDocument(_ relativeURIs: [String], single: Bool, count: Int?, next: String?) -> SerializedBytes {
        var json = JSONWriter()
        guard !single else {
            json.raw("{\"d\":")
            if let relative = relativeURIs.first { link(relative, into: &json) } else { json.raw("null") }
            json.raw("}")
            return json.serialized()
        }
        collection(count: count, next: next, into: &json) { json in
            json.raw("[")
            for (index, relative) in relativeURIs.enumerated() {
                if index > 0 { json.raw(",") }
                link(relative, into: &json)
            }
            json.raw("]")
        }
        return json.serialized()
    }

    private func link(_ relativeURI: String, into json: inout JSONWriter) {
        json.raw("{\"uri\":")
        writeURI(relativeURI, into: &json)
        json.raw("}")
    }

    // MARK: - Entities

    /// One entity. What has a bounded size (names, numbers, the URI, the ETag, deferred links)
    /// is written into room reserved once (`ReservedBytes`); the room is committed before text
    /// and expansions, which the writer appends with its own checks, and reserved again after.
    func entity(_ row: EntityRow, select: SelectNode?, into json: inout JSONWriter, tagDigest: UInt64? = nil) throws {
        try layouts.withLayout(for: row) { layout in
            let fragments = layout.fragments
            json.raw("{\"__metadata\":{\"uri\":\"")
            let uri = writeEntityURI(row, layout: layout, fragments: fragments, into: &json)
            let bound = layout.boundedBytes(uriLength: uri.count)
            var room = json.reserve(bound)
            room.put(UInt8(ascii: "\""))
            room.put(fragments, layout.typeField)
            if writesETags {
                // `W/"<digits>"` as a JSON string, written from the digest without a String.
                room.put(EntityLayout.eTagOpening)
                room.putTagDigits(tagDigest ?? row.tagDigest)
                room.put(EntityLayout.eTagClosing)
            }
            room.put(UInt8(ascii: "}"))
            for (index, field) in layout.properties.enumerated() {
                if let select, !select.includes(property: row.type.properties[index].name) { continue }
                room.put(fragments, field.start..<field.end)
                row.withColumn(field.columnIndex) { column in
                    if !room.putStoredColumn(column, type: field.type) {
                        json.commit(room)
                        json.storedColumnOfUnboundedSize(column, type: field.type)
                        room = json.reserve(bound)
                    }
                }
            }
            // By index, and the expansions found by the property's `id`: a copy of a layout's
            // `Navigation`, or the property passed on, takes a reference to the model's property,
            // whose count every worker changes; its cache line moved between the cores with
            // every entity.
            let navigations = layout.navigations
            for index in navigations.indices {
                if let select, !select.includes(navigation: navigations[index].property.name) { continue }
                room.put(fragments, navigations[index].field)
                // Bound by the guard and consumed by the switch: a `RelatedEntities?` held in a
                // local (nil for most navigations) is destroyed through its runtime metadata, a
                // multi-payload enum's, some hundred instructions for each navigation written.
                guard row.isExpanded, let children = row.children(for: navigations[index].propertyID) else {
                    room.put(EntityLayout.deferredOpening)
                    json.copyWritten(uri, into: &room)
                    room.put(fragments, navigations[index].suffix)
                    room.put(EntityLayout.deferredClosing)
                    continue
                }
                json.commit(room)
                switch consume children {
                case .single(let related):
                    if let related {
                        try entity(related, select: select?.child(navigations[index].property.name), into: &json)
                    } else {
                        json.raw("null")
                    }
                case .lent(let related):
                    if version == .v2 { json.raw("{\"results\":") }
                    json.raw("[")
                    let start = json.count
                    let childSelect = select?.child(navigations[index].property.name)
                    // Read as written: a failure to read is thrown here, and the document dropped.
                    try related.forEach { row in
                        if json.count > start { json.raw(",") }
                        try entity(row, select: childSelect, into: &json)
                    }
                    json.raw("]")
                    if version == .v2 { json.raw("}") }
                }
                room = json.reserve(bound)
            }
            room.put(UInt8(ascii: "}"))
            json.commit(room)
        }
    }
}

/// A collection document written entity by entity, each from its row in place: the caller
/// reads the rows and appends them, then ends the document with what is known only after the
/// last one (`CollectionEnd`). Whether the 2.0 wrapper is needed (a next page makes it so) is
/// known only then, so the array comes first and the wrapper's opening is put before it
/// afterwards, in room kept free for it: the document is written once.
public struct RowCollectionDocument: ~Copyable {
    private let serializer: VerboseJSONSerializer
    private let select: SelectNode?
    private var json = JSONWriter(capacity: 8192, reservingPrefix: 32)
    private var first = true

    fileprivate init(serializer: VerboseJSONSerializer, select: SelectNode?) {
        self.serializer = serializer
        self.select = select
        json.raw("[")
    }

    /// Writes one entity of the page.
    public mutating func append(_ row: EntityRow) throws {
        if !first { json.raw(",") }
        first = false
        try serializer.entity(row, select: select, into: &json)
    }

    /// The document, ended as `end` says.
    public consuming func finish(_ end: VerboseJSONSerializer.CollectionEnd) -> SerializedBytes {
        json.raw("]")
        if end.version == .v1 {
            json.prepend("{\"d\":")
        } else {
            json.prepend("{\"d\":{\"results\":")
            serializer.collectionTail(count: end.count, next: end.next, into: &json)
        }
        json.raw("}")
        return json.serialized()
    }
}
