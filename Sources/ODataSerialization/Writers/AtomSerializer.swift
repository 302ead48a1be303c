import CSDL
import Foundation
import EDM
import ODataStore
import ODataURI

/// Writes responses in the Atom format of OData V2 (MS-ODATA 2.2.6.2): feeds and entries with
/// their properties in `m:properties`, navigation properties as related links (with
/// `m:inline` when expanded), and the XML forms of single properties and links. It serves the
/// clients that ask for Atom, as Excel's OData feed does of a V2 service.
public struct AtomSerializer {
    public static let atomNamespace = "http://www.w3.org/2005/Atom"
    static let relatedPrefix = "http://schemas.microsoft.com/ado/2007/08/dataservices/related/"
    static let scheme = "http://schemas.microsoft.com/ado/2007/08/dataservices/scheme"

    public let uris: EntityURIs
    /// Whether entries carry their ETag (`EntityTag`) in `m:etag`.
    public let writesETags: Bool
    /// The `updated` stamp of feeds and entries; the rows carry no modification time.
    public let updated: String

    public init(uris: EntityURIs, updated: String, writesETags: Bool = false) {
        self.uris = uris
        self.updated = updated
        self.writesETags = writesETags
    }

    private var namespaces: String {
        "xml:base=\"\(escape(uris.serviceRoot))\" xmlns:d=\"\(CSDLNamespaces.dataServices)\" "
            + "xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\" xmlns=\"\(AtomSerializer.atomNamespace)\""
    }

    // MARK: - Documents

    /// A feed written entry by entry as the caller lends them (`AtomFeedDocument`).
    public func rowFeed(title: String, selfLink: String, select: SelectNode?) -> AtomFeedDocument {
        AtomFeedDocument(serializer: self, title: title, selfLink: selfLink, select: select)
    }

    /// An entry document, whose children the row lends are written as they come (a failure
    /// to read one is thrown).
    public func entryDocument(_ row: EntityRow, select: SelectNode?) throws -> [UInt8] {
        var xml = declaration
        try entry(row, select: select, root: true, into: &xml)
        return Array(xml.utf8)
    }

    /// `<d:name m:type="...">value</d:name>` for `Set(key)/Prop` (MS-ODATA 2.2.6.5.1).
    public func propertyDocument(_ property: Property, value: EDMValue) -> [UInt8] {
        var xml = declaration
        xml += "<d:" + property.name + " xmlns:d=\"\(CSDLNamespaces.dataServices)\" xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\""
        xml += AtomSerializer.valueAttributesAndContent(value, type: property.type, element: "d:" + property.name)
        return Array(xml.utf8)
    }

    /// `<links><uri>...</uri></links>`, or a single `<uri>` (MS-ODATA 2.2.6.5.4), of the
    /// entities at `relativeURIs` (below the service root).
    public func linksDocument(_ relativeURIs: [String], single: Bool, count: Int?) -> [UInt8] {
        var xml = declaration
        if single {
            xml += "<uri xmlns=\"\(CSDLNamespaces.dataServices)\">" + escape(relativeURIs.first.map { uris.serviceRoot + $0 } ?? "") + "</uri>"
        } else {
            xml += "<links xmlns=\"\(CSDLNamespaces.dataServices)\" xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\">"
            if let count { xml += "<m:count>\(count)</m:count>" }
            for relative in relativeURIs { xml += "<uri>" + escape(uris.serviceRoot + relative) + "</uri>" }
            xml += "</links>"
        }
        return Array(xml.utf8)
    }

    private var declaration: String { "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n" }

    // MARK: - Feeds and entries

    /// A feed around the entries `entries` writes; the count comes before them, the next link after.
    fileprivate func feed(title: String, selfLink: String, count: Int?, next: String?, root: Bool, into xml: inout String,
                          entries: (inout String) throws -> Void) rethrows {
        xml += root ? "<feed " + namespaces + ">" : "<feed>"
        xml += "<title type=\"text\">" + escape(title) + "</title>"
        xml += "<id>" + escape(uris.serviceRoot + selfLink) + "</id>"
        xml += "<updated>" + updated + "</updated>"
        xml += "<link rel=\"self\" title=\"" + escape(title) + "\" href=\"" + escape(selfLink) + "\" />"
        if let count { xml += "<m:count>\(count)</m:count>" }
        try entries(&xml)
        if let next { xml += "<link rel=\"next\" href=\"" + escape(next) + "\" />" }
        xml += "</feed>"
    }

    fileprivate func entry(_ row: EntityRow, select: SelectNode?, root: Bool, into xml: inout String) throws {
        let type = row.type
        let relative = uris.relativeURI(type: type, key: row.keyValues)
        xml += root ? "<entry " + namespaces : "<entry"
        if writesETags { xml += " m:etag=\"" + escape(EntityTag.weakTag(row.tagDigest)) + "\"" }
        xml += ">"
        xml += "<id>" + escape(uris.serviceRoot + relative) + "</id>"
        xml += "<title type=\"text\" /><updated>" + updated + "</updated><author><name /></author>"
        xml += "<link rel=\"edit\" title=\"" + escape(type.name) + "\" href=\"" + escape(relative) + "\" />"
        for nav in type.navigationProperties where select?.includes(navigation: nav.name) ?? true {
            let href = relative + "/" + nav.name
            xml += "<link rel=\"" + AtomSerializer.relatedPrefix + escape(nav.name) + "\" type=\"application/atom+xml;type="
                + (nav.isCollection ? "feed" : "entry") + "\" title=\"" + escape(nav.name) + "\" href=\"" + escape(href) + "\""
            let inner = select?.child(nav.name)
            switch row.children(for: nav) {
            case .single(let related)?:
                xml += "><m:inline>"
                if let related { try entry(related, select: inner, root: false, into: &xml) }
                xml += "</m:inline></link>"
            case .lent(let related)?:
                // Read as written: a failure to read is thrown here, and the document dropped.
                xml += "><m:inline>"
                try feed(title: nav.name, selfLink: href, count: nil, next: nil, root: false, into: &xml) { xml in
                    try related.forEach { row in try entry(row, select: inner, root: false, into: &xml) }
                }
                xml += "</m:inline></link>"
            case nil:
                xml += " />"
            }
        }
        xml += "<category term=\"" + escape(type.qualifiedName) + "\" scheme=\"" + AtomSerializer.scheme + "\" />"
        xml += "<content type=\"application/xml\"><m:properties>"
        for property in type.properties where select?.includes(property: property.name) ?? true {
            xml += "<d:" + property.name
            xml += AtomSerializer.valueAttributesAndContent(row.value(of: property), type: property.type, element: "d:" + property.name)
        }
        xml += "</m:properties></content></entry>"
    }

    /// The rest of a property element after its name: ` m:type="Edm.Int32">1</d:x>`, or
    /// ` m:null="true" />`. Edm.String carries no m:type, as WCF Data Services writes it.
    static func valueAttributesAndContent(_ value: EDMValue, type: PrimitiveType, element: String) -> String {
        var text = type == .string ? "" : " m:type=\"" + type.name + "\""
        if value.isNull { return text + " m:null=\"true\" />" }
        text += ">"
        switch value {
        case .binary(let bytes): text += Data(bytes).base64EncodedString()
        default: text += CSDLWriter.escape(RawValueFormatter.text(value, type: type))
        }
        return text + "</" + element + ">"
    }

    private func escape(_ text: String) -> String { CSDLWriter.escape(text) }
}

/// An Atom feed written entry by entry, each from its row in place: the caller reads the rows
/// and appends them, then ends the feed with its count and next link, known only after the
/// last one; the count goes before the entries, which are kept apart until then.
public struct AtomFeedDocument {
    private let serializer: AtomSerializer
    private let title: String
    private let selfLink: String
    private let select: SelectNode?
    private var entries = ""

    fileprivate init(serializer: AtomSerializer, title: String, selfLink: String, select: SelectNode?) {
        self.serializer = serializer
        self.title = title
        self.selfLink = selfLink
        self.select = select
    }

    /// Writes one entry of the page.
    public mutating func append(_ row: EntityRow) throws {
        try serializer.entry(row, select: select, root: false, into: &entries)
    }

    /// The document, with the page's count and next link.
    public func finish(count: Int?, next: String?) -> [UInt8] {
        var xml = "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n"
        serializer.feed(title: title, selfLink: selfLink, count: count, next: next, root: true, into: &xml) { $0 += entries }
        return Array(xml.utf8)
    }
}
