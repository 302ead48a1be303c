import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

public struct CSDLReadError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public var line: Int

    public var description: String { line > 0 ? "line \(line): \(message)" : message }
}

/// Reads an EDMX document (a `$metadata` response or a schema file) into a `CSDLDocument`.
public enum CSDLReader {
    public static func read(contentsOf url: URL) throws -> CSDLDocument {
        try read(data: Data(contentsOf: url))
    }

    public static func read(data: Data) throws -> CSDLDocument {
        try requireUTF8(data)
        try refuseEmptyProcessingInstructions(data)
        let parser = XMLParser(data: data)
        let handler = CSDLParseHandler()
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        parser.delegate = handler
        let ok = parser.parse()
        if let error = handler.error { throw error }
        if !ok {
            let reason = parser.parserError.map { "\($0.localizedDescription)" } ?? "malformed XML"
            throw CSDLReadError(message: "not well-formed XML: \(reason)", line: parser.lineNumber)
        }
        guard handler.sawEdmx else { throw CSDLReadError(message: "no edmx:Edmx root element", line: 0) }
        return handler.document
    }

    /// Foundation's XMLParser reads a processing instruction's data with strlen even when there
    /// is none (`<?name?>`, for which libxml2 passes a null pointer), and crashes; EDMX has no
    /// use for processing instructions, so one without data is refused before the parser.
    private static func refuseEmptyProcessingInstructions(_ data: Data) throws(CSDLReadError) {
        let bytes = [UInt8](data)
        var index = 0
        while index + 1 < bytes.count {
            defer { index += 1 }
            guard bytes[index] == UInt8(ascii: "<"), bytes[index + 1] == UInt8(ascii: "?") else { continue }
            var end = index + 2
            while end < bytes.count, !isXMLSpace(bytes[end]), bytes[end] != UInt8(ascii: "?") { end += 1 }
            if end + 1 < bytes.count, bytes[end] == UInt8(ascii: "?"), bytes[end + 1] == UInt8(ascii: ">") {
                let line = bytes[..<index].count { $0 == 0x0A } + 1
                throw CSDLReadError(message: "not well-formed XML: a processing instruction without data", line: line)
            }
        }
    }

    private static func isXMLSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// Foundation's XMLParser traps on a name whose bytes are not UTF-8 (libxml2 passes them
    /// through and Foundation force-unwraps the String it makes of them), so a document that
    /// claims no other encoding by a byte-order mark must be UTF-8 before it reaches the parser.
    private static func requireUTF8(_ data: Data) throws(CSDLReadError) {
        let byteOrderMarks: [[UInt8]] = [[0xFE, 0xFF], [0xFF, 0xFE], [0x00, 0x00, 0xFE, 0xFF]]
        if byteOrderMarks.contains(where: { data.starts(with: $0) }) { return }
        var bytes = data.makeIterator()
        var decoder = UTF8()
        var line = 1
        while true {
            switch decoder.decode(&bytes) {
            case .scalarValue(let scalar): if scalar == "\n" { line += 1 }
            case .emptyInput: return
            case .error: throw CSDLReadError(message: "not well-formed XML: the document is not UTF-8 text", line: line)
            }
        }
    }
}

/// The XMLParser delegate: a small state machine over the CSDL elements.
private final class CSDLParseHandler: NSObject, XMLParserDelegate {
    var document = CSDLDocument()
    var error: CSDLReadError?
    var sawEdmx = false

    private var prefixScopes: [[String: String]] = [[:]]
    private var pendingPrefixes: [String: String] = [:]

    private var schema: CSDLSchema?
    private var entityType: CSDLEntityType?
    private var association: CSDLAssociation?
    private var container: CSDLEntityContainer?
    private var associationSet: CSDLAssociationSet?
    private var functionImport: CSDLFunctionImport?
    private var constraint: CSDLReferentialConstraint?
    private var constraintSide: String?
    private var inKey = false

    func parser(_ parser: XMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        pendingPrefixes[prefix] = namespaceURI
    }

    private func fail(_ parser: XMLParser, _ message: String) {
        guard error == nil else { return }
        error = CSDLReadError(message: message, line: parser.lineNumber)
        parser.abortParsing()
    }

    /// Splits attributes into CSDL's own (unprefixed) and annotations (prefixed, resolved to a namespace).
    private func split(_ attributes: [String: String]) -> (plain: [String: String], annotations: [CSDLAnnotation]) {
        var plain: [String: String] = [:]
        var annotations: [CSDLAnnotation] = []
        for (qualified, value) in attributes.sorted(by: { $0.key < $1.key }) {
            if let colon = qualified.firstIndex(of: ":") {
                let prefix = String(qualified[..<colon])
                let name = String(qualified[qualified.index(after: colon)...])
                if prefix == "xmlns" { continue }
                let namespace = resolve(prefix) ?? prefix
                annotations.append(CSDLAnnotation(namespace: namespace, name: name, value: value))
            } else if qualified != "xmlns" {
                plain[qualified] = value
            }
        }
        return (plain, annotations)
    }

    private func resolve(_ prefix: String) -> String? {
        for scope in prefixScopes.reversed() {
            if let uri = scope[prefix] { return uri }
        }
        return nil
    }

    private func require(_ parser: XMLParser, _ attributes: [String: String], _ name: String, of element: String) -> String? {
        guard let value = attributes[name], !value.isEmpty else {
            fail(parser, "\(element) has no \(name) attribute")
            return nil
        }
        return value
    }

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
        prefixScopes.append(pendingPrefixes)
        pendingPrefixes = [:]
        let (attrs, annotations) = split(attributeDict)
        let namespace = namespaceURI ?? ""

        if namespace == CSDLNamespaces.edmx {
            switch elementName {
            case "Edmx":
                sawEdmx = true
                document.edmxVersion = attrs["Version"] ?? "1.0"
            case "DataServices":
                document.dataServiceVersion = annotations.value(namespace: CSDLNamespaces.dataServicesMetadata, name: "DataServiceVersion")
            default:
                break
            }
            return
        }
        guard CSDLNamespaces.edm.contains(namespace) else { return }

        switch elementName {
        case "Schema":
            guard let ns = require(parser, attrs, "Namespace", of: "Schema") else { return }
            schema = CSDLSchema(namespace: ns, alias: attrs["Alias"])
        case "EntityType":
            guard let name = require(parser, attrs, "Name", of: "EntityType") else { return }
            var type = CSDLEntityType(name: name)
            type.baseType = attrs["BaseType"]
            type.isAbstract = attrs["Abstract"] == "true"
            type.annotations = annotations
            entityType = type
        case "ComplexType":
            fail(parser, "complex types are not supported yet (ComplexType \(attrs["Name"] ?? ""))")
        case "Key":
            inKey = true
        case "PropertyRef":
            guard let name = require(parser, attrs, "Name", of: "PropertyRef") else { return }
            if inKey {
                entityType?.key.append(name)
            } else if constraintSide == "Principal" {
                constraint?.principalProperties.append(name)
            } else if constraintSide == "Dependent" {
                constraint?.dependentProperties.append(name)
            }
        case "Property":
            guard entityType != nil,
                  let name = require(parser, attrs, "Name", of: "Property"),
                  let type = require(parser, attrs, "Type", of: "Property \(name)") else { return }
            var property = CSDLProperty(name: name, type: type)
            property.nullable = attrs["Nullable"].map { $0 != "false" } ?? true
            property.maxLength = attrs["MaxLength"]
            property.fixedLength = attrs["FixedLength"].map { $0 == "true" }
            property.unicode = attrs["Unicode"].map { $0 == "true" }
            property.precision = attrs["Precision"].flatMap { Int($0) }
            property.scale = attrs["Scale"].flatMap { Int($0) }
            property.defaultValue = attrs["DefaultValue"]
            property.concurrencyMode = attrs["ConcurrencyMode"]
            property.annotations = annotations
            entityType?.properties.append(property)
        case "NavigationProperty":
            guard let name = require(parser, attrs, "Name", of: "NavigationProperty"),
                  let relationship = require(parser, attrs, "Relationship", of: "NavigationProperty \(name)"),
                  let from = require(parser, attrs, "FromRole", of: "NavigationProperty \(name)"),
                  let to = require(parser, attrs, "ToRole", of: "NavigationProperty \(name)") else { return }
            entityType?.navigationProperties.append(
                CSDLNavigationProperty(name: name, relationship: relationship, fromRole: from, toRole: to))
        case "Association":
            guard let name = require(parser, attrs, "Name", of: "Association") else { return }
            association = CSDLAssociation(name: name)
        case "End":
            if association != nil {
                guard let role = require(parser, attrs, "Role", of: "End"),
                      let type = require(parser, attrs, "Type", of: "End \(role)"),
                      let multiplicity = require(parser, attrs, "Multiplicity", of: "End \(role)") else { return }
                var end = CSDLAssociationEnd(role: role, type: type, multiplicity: multiplicity)
                end.annotations = annotations
                association?.ends.append(end)
            } else if associationSet != nil {
                guard let role = require(parser, attrs, "Role", of: "End"),
                      let set = require(parser, attrs, "EntitySet", of: "End \(role)") else { return }
                associationSet?.ends.append(.init(role: role, entitySet: set))
            }
        case "OnDelete":
            if let action = attrs["Action"], let index = association?.ends.indices.last {
                association?.ends[index].onDelete = action
            }
        case "ReferentialConstraint":
            constraint = CSDLReferentialConstraint(principalRole: "", principalProperties: [], dependentRole: "", dependentProperties: [])
        case "Principal", "Dependent":
            constraintSide = elementName
            let role = attrs["Role"] ?? ""
            if elementName == "Principal" { constraint?.principalRole = role } else { constraint?.dependentRole = role }
        case "EntityContainer":
            guard let name = require(parser, attrs, "Name", of: "EntityContainer") else { return }
            var c = CSDLEntityContainer(name: name)
            c.isDefault = annotations.value(namespace: CSDLNamespaces.dataServicesMetadata, name: "IsDefaultEntityContainer") == "true"
            container = c
        case "EntitySet":
            guard let name = require(parser, attrs, "Name", of: "EntitySet"),
                  let type = require(parser, attrs, "EntityType", of: "EntitySet \(name)") else { return }
            var set = CSDLEntitySet(name: name, entityType: type)
            set.annotations = annotations
            container?.entitySets.append(set)
        case "FunctionImport":
            guard let name = require(parser, attrs, "Name", of: "FunctionImport") else { return }
            var function = CSDLFunctionImport(name: name)
            function.returnType = attrs["ReturnType"]
            function.entitySet = attrs["EntitySet"]
            function.httpMethod = annotations.value(namespace: CSDLNamespaces.dataServicesMetadata, name: "HttpMethod")
            function.annotations = annotations.filter { $0.namespace != CSDLNamespaces.dataServicesMetadata }
            functionImport = function
        case "Parameter":
            guard functionImport != nil,
                  let name = require(parser, attrs, "Name", of: "Parameter"),
                  let type = require(parser, attrs, "Type", of: "Parameter \(name)") else { return }
            var parameter = CSDLFunctionImport.Parameter(name: name, type: type)
            parameter.mode = attrs["Mode"]
            parameter.nullable = attrs["Nullable"].map { $0 != "false" }
            parameter.maxLength = attrs["MaxLength"]
            parameter.precision = attrs["Precision"].flatMap { Int($0) }
            parameter.scale = attrs["Scale"].flatMap { Int($0) }
            functionImport?.parameters.append(parameter)
        case "AssociationSet":
            guard let name = require(parser, attrs, "Name", of: "AssociationSet"),
                  let assoc = require(parser, attrs, "Association", of: "AssociationSet \(name)") else { return }
            associationSet = CSDLAssociationSet(name: name, association: assoc)
        default:
            break
        }
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        if !prefixScopes.isEmpty { prefixScopes.removeLast() }
        guard CSDLNamespaces.edm.contains(namespaceURI ?? "") else { return }
        switch elementName {
        case "Schema":
            if let s = schema { document.schemas.append(s) }
            schema = nil
        case "EntityType":
            if let t = entityType { schema?.entityTypes.append(t) }
            entityType = nil
        case "Key":
            inKey = false
        case "Association":
            if let a = association { schema?.associations.append(a) }
            association = nil
        case "ReferentialConstraint":
            association?.referentialConstraint = constraint
            constraint = nil
        case "Principal", "Dependent":
            constraintSide = nil
        case "EntityContainer":
            if let c = container { schema?.entityContainers.append(c) }
            container = nil
        case "AssociationSet":
            if let s = associationSet { container?.associationSets.append(s) }
            associationSet = nil
        case "FunctionImport":
            if let f = functionImport { container?.functionImports.append(f) }
            functionImport = nil
        default:
            break
        }
    }
}
