import CSDL
import EDM

/// Atom and XML request bodies (MS-ODATA 2.2.6.2): an Atom entry for creates and updates, an
/// XML property element for `PUT Set(key)/Prop`, and `<uri>` (or `<links>` with one `<uri>`)
/// for `$links`. Each is read into the verbose-JSON tree it says the same as, and checked by
/// the JSON path: one set of rules and messages for both formats, and one payload type.
extension EntityDeserializer {
    static let atomNamespace = "http://www.w3.org/2005/Atom"
    static let relatedLinkPrefix = "http://schemas.microsoft.com/ado/2007/08/dataservices/related/"
    private static var m: String { CSDLNamespaces.dataServicesMetadata }
    private static var d: String { CSDLNamespaces.dataServices }

    /// The body of `POST Set`, `PUT/MERGE/PATCH Set(key)` and `POST Set(key)/Nav` as an Atom entry.
    public func entity(fromAtom body: [UInt8], of type: EntityType) throws(PayloadError) -> EntityPayload {
        let root = try XMLElementTree.parse(body, maximumDepth: maximumDepth)
        guard root.name == "entry", root.namespace == Self.atomNamespace else {
            throw PayloadError("The request body must be an Atom entry (<entry xmlns=\"\(Self.atomNamespace)\">) describing an entity of type \(type.qualifiedName), not <\(root.name)>.")
        }
        return try entity(from: try json(ofEntry: root, type: type), of: type)
    }

    /// The body of `PUT Set(key)/Prop` as XML: `<d:Prop m:type="…">value</d:Prop>`.
    public func propertyValue(fromXML body: [UInt8], for property: Property) throws(PayloadError) -> EDMValue {
        let root = try XMLElementTree.parse(body, maximumDepth: maximumDepth)
        guard root.name == property.name, root.namespace == Self.d else {
            throw PayloadError("The request body updates property '\(property.name)': send <\(property.name) xmlns=\"\(Self.d)\">value</\(property.name)>, not <\(root.name)>.",
                               propertyName: property.name)
        }
        return try PropertyValueDecoder.decode(try Self.json(ofProperty: root, property), for: property)
    }

    /// The body of `POST/PUT Set(key)/$links/Nav` as XML: `<uri xmlns="…/dataservices">…</uri>`,
    /// or `<links>` holding exactly one such `<uri>`.
    public func link(fromXML body: [UInt8]) throws(PayloadError) -> EntityReference {
        let root = try XMLElementTree.parse(body, maximumDepth: maximumDepth)
        var uri = root
        if root.name == "links", root.namespace == Self.d {
            let uris = root.children("uri", namespace: Self.d)
            guard uris.count == 1, root.children.count == 1, let only = uris.first else {
                throw PayloadError("A $links request body names one entity: <links> must hold exactly one <uri>, not \(root.children.count) elements.")
            }
            uri = only
        }
        guard uri.name == "uri", uri.namespace == Self.d, uri.children.isEmpty else {
            throw PayloadError("The $links request body must be <uri xmlns=\"\(Self.d)\">…</uri> naming the entity to link.")
        }
        return try EntityReference(uri: Self.trimmed(uri.text), serviceRoot: serviceRoot)
    }

    // MARK: Atom to the verbose-JSON tree

    /// An entry as the JSON object that says the same: its type in `__metadata`, its
    /// properties, and its navigation links as bindings (`{"__metadata": {"uri": …}}`) or
    /// inline entities.
    private func json(ofEntry entry: XMLElementTree, type: EntityType) throws(PayloadError) -> JSONValue {
        var members: [JSONObject.Member] = []
        var seen: Set<String> = []
        func add(_ name: String, _ value: JSONValue) throws(PayloadError) {
            guard seen.insert(name).inserted else {
                throw PayloadError("'\(name)' appears more than once in the entry.", propertyName: name)
            }
            members.append(.init(name: name, value: value))
        }
        for category in entry.children("category", namespace: Self.atomNamespace)
        where category.attribute("scheme") == "http://schemas.microsoft.com/ado/2007/08/dataservices/scheme" {
            if let term = category.attribute("term") {
                try add("__metadata", .object(JSONObject(["type": .string(term)])))
            }
        }
        // Properties are in <content>, or beside it in a media link entry.
        var propertyLists = entry.children("properties", namespace: Self.m)
        for content in entry.children("content", namespace: Self.atomNamespace) {
            propertyLists += content.children("properties", namespace: Self.m)
        }
        for list in propertyLists {
            for element in list.children {
                guard element.namespace == Self.d else {
                    throw PayloadError("<\(element.name)> in m:properties is not in the data services namespace \(Self.d).", propertyName: element.name)
                }
                guard let property = type.property(named: element.name) else {
                    throw PayloadError("Property '\(element.name)' does not exist on type \(type.qualifiedName).", propertyName: element.name)
                }
                try add(property.name, try Self.json(ofProperty: element, property))
            }
        }
        // Links in document order; a to-many navigation may have several (one per bound entity).
        var navigations: [(NavigationProperty, [JSONValue], isNull: Bool)] = []
        for link in entry.children("link", namespace: Self.atomNamespace) {
            guard let rel = link.attribute("rel"), rel.hasPrefix(Self.relatedLinkPrefix) else { continue }
            let name = String(rel.dropFirst(Self.relatedLinkPrefix.count))
            guard let navigation = type.navigationProperty(named: name) else {
                throw PayloadError("'\(name)' is not a navigation property of type \(type.qualifiedName).", propertyName: name)
            }
            var related: [JSONValue] = []
            var isNull = false
            if let inline = link.child("inline", namespace: Self.m) {
                if let feed = inline.child("feed", namespace: Self.atomNamespace) {
                    for inner in feed.children("entry", namespace: Self.atomNamespace) {
                        related.append(try nested(inner, of: navigation))
                    }
                } else if let inner = inline.child("entry", namespace: Self.atomNamespace) {
                    related.append(try nested(inner, of: navigation))
                } else {
                    isNull = true
                }
            } else if let href = link.attribute("href") {
                related.append(.object(JSONObject(["__metadata": .object(JSONObject(["uri": .string(href)]))])))
            } else {
                throw PayloadError("The link to '\(name)' has neither an href nor m:inline content.", propertyName: name)
            }
            if let index = navigations.firstIndex(where: { $0.0.name == name }) {
                navigations[index].1 += related
            } else {
                navigations.append((navigation, related, isNull))
            }
        }
        for (navigation, related, isNull) in navigations {
            if navigation.isCollection {
                try add(navigation.name, .array(related))
            } else if isNull && related.isEmpty {
                try add(navigation.name, .null)
            } else {
                guard related.count == 1 else {
                    throw PayloadError("Navigation property '\(navigation.name)' refers to a single \(navigation.target.qualifiedName), but the entry links \(related.count).",
                                       propertyName: navigation.name)
                }
                try add(navigation.name, related[0])
            }
        }
        return .object(JSONObject(members))
    }

    private func nested(_ entry: XMLElementTree, of navigation: NavigationProperty) throws(PayloadError) -> JSONValue {
        do throws(PayloadError) {
            return try json(ofEntry: entry, type: navigation.target)
        } catch {
            throw error.nested(in: navigation.name, item: nil)
        }
    }

    /// One property element as the JSON value verbose JSON would send: null for `m:null="true"`,
    /// a boolean for Edm.Boolean, otherwise its text, which `PropertyValueDecoder` reads in the
    /// forms Atom writes (ISO 8601 dates, `PT13H20M`, base64).
    private static func json(ofProperty element: XMLElementTree, _ property: Property) throws(PayloadError) -> JSONValue {
        if let declared = element.attribute("type", namespace: m), declared != property.type.name {
            throw PayloadError("Property '\(property.name)' is of type \(property.type.name), but the body says m:type=\"\(declared)\".",
                               propertyName: property.name)
        }
        guard element.children.isEmpty else {
            throw PayloadError("Property '\(property.name)' is a primitive \(property.type.name); it cannot hold elements.", propertyName: property.name)
        }
        switch element.attribute("null", namespace: m) {
        case "true"?, "1"?: return .null
        case nil, "false"?, "0"?: break
        case let other?:
            throw PayloadError("m:null of property '\(property.name)' must be true or false, not '\(other)'.", propertyName: property.name)
        }
        guard property.type == .boolean else { return .string(element.text) }
        switch trimmed(element.text) {
        case "true", "1": return .bool(true)
        case "false", "0": return .bool(false)
        default:
            throw PayloadError("Property '\(property.name)' expects an Edm.Boolean value: '\(element.text)' is not true or false.",
                               propertyName: property.name)
        }
    }

    private static func trimmed(_ text: String) -> String {
        var text = Substring(text)
        while let first = text.first, first.isWhitespace { text = text.dropFirst() }
        while let last = text.last, last.isWhitespace { text = text.dropLast() }
        return String(text)
    }
}
