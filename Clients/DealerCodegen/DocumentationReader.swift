import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

/// The `<Documentation>` of entity types and their properties, read from the same EDMX, since
/// the shared CSDL reader keeps only what the gateway needs. Keys are `Namespace.Type` and
/// `Namespace.Type/Property`; values are the Summary, then the LongDescription, as one text.
final class DocumentationReader: NSObject, XMLParserDelegate {
    private(set) var texts: [String: String] = [:]
    private var namespace = ""
    private var typeName: String?
    private var memberName: String?
    private var summary = ""
    private var longDescription = ""
    private var inDocumentation = false
    private var field: String?

    static func read(_ data: Data) -> [String: String] {
        let reader = DocumentationReader()
        let parser = XMLParser(data: data)
        parser.delegate = reader
        parser.shouldProcessNamespaces = true
        // Metadata the CSDL reader accepted is well-formed; a failure here only loses comments.
        _ = parser.parse()
        return reader.texts
    }

    private var key: String? {
        guard let typeName else { return nil }
        return namespace + "." + typeName + (memberName.map { "/" + $0 } ?? "")
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName: String?, attributes: [String: String] = [:]) {
        switch elementName {
        case "Schema": namespace = attributes["Namespace"] ?? ""
        case "EntityType", "ComplexType": typeName = attributes["Name"]; memberName = nil
        case "Property", "NavigationProperty": memberName = attributes["Name"]
        case "Documentation": inDocumentation = true; summary = ""; longDescription = ""
        case "Summary", "LongDescription": if inDocumentation { field = elementName }
        default: break
        }
    }

    func parser(_ parser: XMLParser, foundCharacters string: String) {
        switch field {
        case "Summary": summary += string
        case "LongDescription": longDescription += string
        default: break
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
        switch elementName {
        case "Summary", "LongDescription":
            field = nil
        case "Documentation":
            inDocumentation = false
            let parts = [summary, longDescription].map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }.filter { !$0.isEmpty }
            if let key, !parts.isEmpty { texts[key] = parts.joined(separator: " ") }
        case "Property", "NavigationProperty":
            memberName = nil
        case "EntityType", "ComplexType":
            typeName = nil
        default:
            break
        }
    }
}
