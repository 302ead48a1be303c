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
    public let etag: ((EntityRecord) -> String?)?
    /// The `updated` stamp of feeds and entries; the rows carry no modification time.
    public let updated: String

    public init(uris: EntityURIs, updated: String, etag: ((EntityRecord) -> String?)? = nil) {
        self.uris = uris
        self.updated = updated
        self.etag = etag
    }

    private var namespaces: String {
        "xml:base=\"\(escape(uris.serviceRoot))\" xmlns:d=\"\(CSDLNamespaces.dataServices)\" "
            + "xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\" xmlns=\"\(AtomSerializer.atomNamespace)\""
    }

    // MARK: - Documents

    public func feedDocument(_ records: [EntityRecord], title: String, selfLink: String, select: SelectNode?,
                             count: Int?, next: String?) -> [UInt8] {
        var xml = declaration
        feed(records, title: title, selfLink: selfLink, select: select, count: count, next: next, root: true, into: &xml)
        return Array(xml.utf8)
    }

    public func entryDocument(_ record: EntityRecord, select: SelectNode?) -> [UInt8] {
        var xml = declaration
        entry(record, select: select, root: true, into: &xml)
        return Array(xml.utf8)
    }

    /// `<d:name m:type="...">value</d:name>` for `Set(key)/Prop` (MS-ODATA 2.2.6.5.1).
    public func propertyDocument(_ property: Property, value: EDMValue) -> [UInt8] {
        var xml = declaration
        xml += "<d:" + property.name + " xmlns:d=\"\(CSDLNamespaces.dataServices)\" xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\""
        xml += AtomSerializer.valueAttributesAndContent(value, type: property.type, element: "d:" + property.name)
        return Array(xml.utf8)
    }

    /// `<links><uri>...</uri></links>`, or a single `<uri>` (MS-ODATA 2.2.6.5.4).
    public func linksDocument(_ records: [EntityRecord], single: Bool, count: Int?) -> [UInt8] {
        var xml = declaration
        if single {
            xml += "<uri xmlns=\"\(CSDLNamespaces.dataServices)\">" + escape(records.first.map { uris.uri(of: $0) } ?? "") + "</uri>"
        } else {
            xml += "<links xmlns=\"\(CSDLNamespaces.dataServices)\" xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\">"
            if let count { xml += "<m:count>\(count)</m:count>" }
            for record in records { xml += "<uri>" + escape(uris.uri(of: record)) + "</uri>" }
            xml += "</links>"
        }
        return Array(xml.utf8)
    }

    private var declaration: String { "<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n" }

    // MARK: - Feeds and entries

    private func feed(_ records: [EntityRecord], title: String, selfLink: String, select: SelectNode?,
                      count: Int?, next: String?, root: Bool, into xml: inout String) {
        xml += root ? "<feed " + namespaces + ">" : "<feed>"
        xml += "<title type=\"text\">" + escape(title) + "</title>"
        xml += "<id>" + escape(uris.serviceRoot + selfLink) + "</id>"
        xml += "<updated>" + updated + "</updated>"
        xml += "<link rel=\"self\" title=\"" + escape(title) + "\" href=\"" + escape(selfLink) + "\" />"
        if let count { xml += "<m:count>\(count)</m:count>" }
        for record in records { entry(record, select: select, root: false, into: &xml) }
        if let next { xml += "<link rel=\"next\" href=\"" + escape(next) + "\" />" }
        xml += "</feed>"
    }

    private func entry(_ record: EntityRecord, select: SelectNode?, root: Bool, into xml: inout String) {
        let type = record.type
        let relative = uris.relativeURI(of: record)
        xml += root ? "<entry " + namespaces : "<entry"
        if let etag, let tag = etag(record) { xml += " m:etag=\"" + escape(tag) + "\"" }
        xml += ">"
        xml += "<id>" + escape(uris.serviceRoot + relative) + "</id>"
        xml += "<title type=\"text\" /><updated>" + updated + "</updated><author><name /></author>"
        xml += "<link rel=\"edit\" title=\"" + escape(type.name) + "\" href=\"" + escape(relative) + "\" />"
        for nav in type.navigationProperties where select?.includes(navigation: nav.name) ?? true {
            let href = relative + "/" + nav.name
            xml += "<link rel=\"" + AtomSerializer.relatedPrefix + escape(nav.name) + "\" type=\"application/atom+xml;type="
                + (nav.isCollection ? "feed" : "entry") + "\" title=\"" + escape(nav.name) + "\" href=\"" + escape(href) + "\""
            switch record.expansion(of: nav) {
            case .single(let related)?:
                xml += "><m:inline>"
                if let related { entry(related, select: select?.child(nav.name), root: false, into: &xml) }
                xml += "</m:inline></link>"
            case .collection(let related)?:
                xml += "><m:inline>"
                feed(related, title: nav.name, selfLink: href, select: select?.child(nav.name), count: nil, next: nil, root: false, into: &xml)
                xml += "</m:inline></link>"
            case .lent?, nil:
                // Atom is written from records, which never hold lent entities.
                xml += " />"
            }
        }
        xml += "<category term=\"" + escape(type.qualifiedName) + "\" scheme=\"" + AtomSerializer.scheme + "\" />"
        xml += "<content type=\"application/xml\"><m:properties>"
        for property in type.properties where select?.includes(property: property.name) ?? true {
            xml += "<d:" + property.name
            xml += AtomSerializer.valueAttributesAndContent(record.value(of: property), type: property.type, element: "d:" + property.name)
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
