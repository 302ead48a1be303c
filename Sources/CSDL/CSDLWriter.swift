/// Writes a `CSDLDocument` as an EDMX document, the form `$metadata` serves.
public enum CSDLWriter {
    public static func write(_ document: CSDLDocument) -> String {
        var out = XMLText()
        out.raw("<?xml version=\"1.0\" encoding=\"utf-8\" standalone=\"yes\"?>\n")
        out.raw("<edmx:Edmx Version=\"\(escape(document.edmxVersion))\" xmlns:edmx=\"\(CSDLNamespaces.edmx)\">\n")
        out.raw("  <edmx:DataServices xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\"")
        if let version = document.dataServiceVersion {
            out.raw(" m:DataServiceVersion=\"\(escape(version))\"")
        }
        out.raw(">\n")
        for schema in document.schemas {
            writeSchema(schema, into: &out)
        }
        out.raw("  </edmx:DataServices>\n</edmx:Edmx>\n")
        return out.text
    }

    private static func writeSchema(_ schema: CSDLSchema, into out: inout XMLText) {
        let prefixes = AnnotationPrefixes(schema: schema)
        out.raw("    <Schema Namespace=\"\(escape(schema.namespace))\"")
        if let alias = schema.alias { out.raw(" Alias=\"\(escape(alias))\"") }
        out.raw(" xmlns:d=\"\(CSDLNamespaces.dataServices)\" xmlns:m=\"\(CSDLNamespaces.dataServicesMetadata)\"")
        out.raw(" xmlns=\"\(CSDLNamespaces.edm2)\"")
        for (namespace, prefix) in prefixes.ordered {
            out.raw(" xmlns:\(prefix)=\"\(escape(namespace))\"")
        }
        out.raw(">\n")
        for type in schema.entityTypes {
            out.raw("      <EntityType Name=\"\(escape(type.name))\"")
            if let base = type.baseType { out.raw(" BaseType=\"\(escape(base))\"") }
            if type.isAbstract { out.raw(" Abstract=\"true\"") }
            out.raw(prefixes.attributes(type.annotations))
            out.raw(">\n")
            if !type.key.isEmpty {
                out.raw("        <Key>\n")
                for name in type.key { out.raw("          <PropertyRef Name=\"\(escape(name))\"/>\n") }
                out.raw("        </Key>\n")
            }
            for property in type.properties {
                out.raw("        <Property Name=\"\(escape(property.name))\" Type=\"\(escape(property.type))\"")
                out.raw(" Nullable=\"\(property.nullable)\"")
                if let v = property.defaultValue { out.raw(" DefaultValue=\"\(escape(v))\"") }
                if let v = property.maxLength { out.raw(" MaxLength=\"\(escape(v))\"") }
                if let v = property.fixedLength { out.raw(" FixedLength=\"\(v)\"") }
                if let v = property.precision { out.raw(" Precision=\"\(v)\"") }
                if let v = property.scale { out.raw(" Scale=\"\(v)\"") }
                if let v = property.unicode { out.raw(" Unicode=\"\(v)\"") }
                if let v = property.concurrencyMode { out.raw(" ConcurrencyMode=\"\(escape(v))\"") }
                out.raw(prefixes.attributes(property.annotations))
                out.raw("/>\n")
            }
            for nav in type.navigationProperties {
                out.raw("        <NavigationProperty Name=\"\(escape(nav.name))\" Relationship=\"\(escape(nav.relationship))\"")
                out.raw(" FromRole=\"\(escape(nav.fromRole))\" ToRole=\"\(escape(nav.toRole))\"/>\n")
            }
            out.raw("      </EntityType>\n")
        }
        for association in schema.associations {
            out.raw("      <Association Name=\"\(escape(association.name))\">\n")
            for end in association.ends {
                out.raw("        <End Role=\"\(escape(end.role))\" Type=\"\(escape(end.type))\" Multiplicity=\"\(escape(end.multiplicity))\"")
                out.raw(prefixes.attributes(end.annotations))
                if let action = end.onDelete {
                    out.raw(">\n          <OnDelete Action=\"\(escape(action))\"/>\n        </End>\n")
                } else {
                    out.raw("/>\n")
                }
            }
            if let constraint = association.referentialConstraint {
                out.raw("        <ReferentialConstraint>\n")
                out.raw("          <Principal Role=\"\(escape(constraint.principalRole))\">\n")
                for name in constraint.principalProperties { out.raw("            <PropertyRef Name=\"\(escape(name))\"/>\n") }
                out.raw("          </Principal>\n")
                out.raw("          <Dependent Role=\"\(escape(constraint.dependentRole))\">\n")
                for name in constraint.dependentProperties { out.raw("            <PropertyRef Name=\"\(escape(name))\"/>\n") }
                out.raw("          </Dependent>\n")
                out.raw("        </ReferentialConstraint>\n")
            }
            out.raw("      </Association>\n")
        }
        for container in schema.entityContainers {
            out.raw("      <EntityContainer Name=\"\(escape(container.name))\"")
            if container.isDefault { out.raw(" m:IsDefaultEntityContainer=\"true\"") }
            out.raw(">\n")
            for set in container.entitySets {
                out.raw("        <EntitySet Name=\"\(escape(set.name))\" EntityType=\"\(escape(set.entityType))\"")
                out.raw(prefixes.attributes(set.annotations))
                out.raw("/>\n")
            }
            for set in container.associationSets {
                out.raw("        <AssociationSet Name=\"\(escape(set.name))\" Association=\"\(escape(set.association))\">\n")
                for end in set.ends {
                    out.raw("          <End Role=\"\(escape(end.role))\" EntitySet=\"\(escape(end.entitySet))\"/>\n")
                }
                out.raw("        </AssociationSet>\n")
            }
            for function in container.functionImports {
                out.raw("        <FunctionImport Name=\"\(escape(function.name))\"")
                if let v = function.returnType { out.raw(" ReturnType=\"\(escape(v))\"") }
                if let v = function.entitySet { out.raw(" EntitySet=\"\(escape(v))\"") }
                if let v = function.httpMethod { out.raw(" m:HttpMethod=\"\(escape(v))\"") }
                out.raw(prefixes.attributes(function.annotations))
                guard !function.parameters.isEmpty else {
                    out.raw("/>\n")
                    continue
                }
                out.raw(">\n")
                for parameter in function.parameters {
                    out.raw("          <Parameter Name=\"\(escape(parameter.name))\" Type=\"\(escape(parameter.type))\"")
                    if let v = parameter.mode { out.raw(" Mode=\"\(escape(v))\"") }
                    if let v = parameter.nullable { out.raw(" Nullable=\"\(v)\"") }
                    if let v = parameter.maxLength { out.raw(" MaxLength=\"\(escape(v))\"") }
                    if let v = parameter.precision { out.raw(" Precision=\"\(v)\"") }
                    if let v = parameter.scale { out.raw(" Scale=\"\(v)\"") }
                    out.raw("/>\n")
                }
                out.raw("        </FunctionImport>\n")
            }
            out.raw("      </EntityContainer>\n")
        }
        out.raw("    </Schema>\n")
    }

    /// Escapes text for an XML attribute value or element content.
    public static func escape(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&apos;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

/// Prefixes for the annotation namespaces a schema uses, declared once on its Schema element.
private struct AnnotationPrefixes {
    private(set) var ordered: [(String, String)] = []
    private var byNamespace: [String: String] = [:]

    init(schema: CSDLSchema) {
        var all: [CSDLAnnotation] = []
        for type in schema.entityTypes {
            all += type.annotations
            for property in type.properties { all += property.annotations }
        }
        for association in schema.associations {
            for end in association.ends { all += end.annotations }
        }
        for container in schema.entityContainers {
            for set in container.entitySets { all += set.annotations }
            for function in container.functionImports { all += function.annotations }
        }
        for annotation in all where byNamespace[annotation.namespace] == nil {
            let prefix = annotation.namespace == CSDLNamespaces.annotation ? "annotation" : "a\(ordered.count + 1)"
            byNamespace[annotation.namespace] = prefix
            ordered.append((annotation.namespace, prefix))
        }
    }

    func attributes(_ annotations: [CSDLAnnotation]) -> String {
        var text = ""
        for annotation in annotations {
            guard let prefix = byNamespace[annotation.namespace] else { continue }
            text += " \(prefix):\(annotation.name)=\"\(CSDLWriter.escape(annotation.value))\""
        }
        return text
    }
}

private struct XMLText {
    var text = ""
    mutating func raw(_ s: String) { text += s }
}
