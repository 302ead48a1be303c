import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// An XML request body read into elements, with namespaces resolved, by Foundation's
/// `XMLParser` (libxml2). A document with a DTD is refused before it is parsed: bodies never
/// need one, and refusing it refuses every entity declaration, internal (expansion bombs) or
/// external (files, URLs), whatever the parser would do with them.
struct XMLElementTree: Sendable {
    let namespace: String
    let name: String
    /// Attributes by namespace and local name; an unprefixed attribute has the empty namespace.
    let attributes: [XMLName: String]
    let children: [XMLElementTree]
    /// The element's own character data, concatenated.
    let text: String

    struct XMLName: Hashable, Sendable {
        let namespace: String
        let name: String
    }

    func attribute(_ name: String, namespace: String = "") -> String? {
        attributes[XMLName(namespace: namespace, name: name)]
    }

    func children(_ name: String, namespace: String) -> [XMLElementTree] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    func child(_ name: String, namespace: String) -> XMLElementTree? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// The document's root element; a `PayloadError` for a body that is not well-formed XML,
    /// has a DTD, or nests deeper than `maximumDepth`.
    static func parse(_ body: [UInt8], maximumDepth: Int) throws(PayloadError) -> XMLElementTree {
        guard body.contains(where: { !(UInt8(ascii: " ") == $0 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D) }) else {
            throw PayloadError("The request body is empty; expected an XML document.")
        }
        if containsDeclaration(body) {
            throw PayloadError("The request body has a document type declaration (<!DOCTYPE>); XML bodies must not declare one.")
        }
        let builder = TreeBuilder(maximumDepth: maximumDepth)
        let parser = XMLParser(data: Data(body))
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let parsed = parser.parse()
        if let failure = builder.failure { throw failure }
        guard parsed, let root = builder.root else {
            let reason = parser.parserError.map { ($0 as NSError).localizedDescription } ?? "it is not well-formed"
            throw PayloadError("The request body is malformed XML: \(reason) (line \(parser.lineNumber), column \(parser.columnNumber)).")
        }
        return root
    }

    /// Whether the bytes hold `<!DOCTYPE` or `<!ENTITY` anywhere (an encoding other than UTF-8
    /// would hide them, and is refused by the Content-Type check before this).
    private static func containsDeclaration(_ body: [UInt8]) -> Bool {
        for marker in ["<!DOCTYPE", "<!ENTITY"] {
            let needle = Array(marker.utf8)
            if body.count >= needle.count {
                for start in 0...(body.count - needle.count) where body[start] == needle[0] && body[start..<start + needle.count].elementsEqual(needle) {
                    return true
                }
            }
        }
        return false
    }
}

/// Builds the tree from the parser's events, resolving attribute prefixes with the mappings the
/// parser reports.
private final class TreeBuilder: NSObject, XMLParserDelegate {
    private struct Open {
        var namespace: String
        var name: String
        var attributes: [XMLElementTree.XMLName: String]
        var children: [XMLElementTree] = []
        var text = ""
    }

    private let maximumDepth: Int
    private var stack: [Open] = []
    private var prefixes: [String: [String]] = [:]
    var root: XMLElementTree?
    var failure: PayloadError?

    init(maximumDepth: Int) {
        self.maximumDepth = maximumDepth
    }

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        prefixes[prefix, default: []].append(namespaceURI)
    }

    func parser(_ parser: XMLParser, didEndMappingPrefix prefix: String) {
        _ = prefixes[prefix]?.popLast()
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?, qualifiedName: String?,
                attributes: [String: String] = [:]) {
        guard stack.count < maximumDepth else {
            fail(PayloadError("The request body nests elements deeper than \(maximumDepth) levels."), parser)
            return
        }
        var resolved: [XMLElementTree.XMLName: String] = [:]
        for (qualified, value) in attributes {
            let parts = qualified.split(separator: ":", maxSplits: 1)
            if parts.count == 2 {
                let prefix = String(parts[0])
                if prefix == "xmlns" { continue }
                let namespace = prefix == "xml" ? "http://www.w3.org/XML/1998/namespace" : prefixes[prefix]?.last
                guard let namespace else {
                    fail(PayloadError("The attribute '\(qualified)' has an undeclared namespace prefix."), parser)
                    return
                }
                resolved[.init(namespace: namespace, name: String(parts[1]))] = value
            } else if qualified != "xmlns" {
                resolved[.init(namespace: "", name: qualified)] = value
            }
        }
        stack.append(Open(namespace: namespaceURI ?? "", name: elementName, attributes: resolved))
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += string
    }

    func parser(_ parser: XMLParser, foundCDATA block: Data) {
        guard !stack.isEmpty else { return }
        stack[stack.count - 1].text += String(decoding: block, as: UTF8.self)
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        guard let open = stack.popLast() else { return }
        let element = XMLElementTree(namespace: open.namespace, name: open.name, attributes: open.attributes,
                                     children: open.children, text: open.text)
        if stack.isEmpty { root = element } else { stack[stack.count - 1].children.append(element) }
    }

    func parser(_ parser: XMLParser, foundInternalEntityDeclarationWithName name: String, value: String?) {
        fail(PayloadError("The request body declares an entity; XML bodies must not."), parser)
    }

    func parser(_ parser: XMLParser, foundExternalEntityDeclarationWithName name: String, publicID: String?, systemID: String?) {
        fail(PayloadError("The request body declares an entity; XML bodies must not."), parser)
    }

    func parser(_ parser: XMLParser, resolveExternalEntityName name: String, systemID: String?) -> Data? {
        nil
    }

    private func fail(_ error: PayloadError, _ parser: XMLParser) {
        if failure == nil { failure = error }
        parser.abortParsing()
    }
}
