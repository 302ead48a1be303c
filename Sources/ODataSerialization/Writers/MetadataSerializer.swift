import CSDL
import EDM

/// The `$metadata` document: the model written back as CSDL, with the storage annotations
/// left out (they are the gateway's business, not the client's) but StoreGeneratedPattern kept.
public enum MetadataSerializer {
    public static func document(for model: EntityModel) -> CSDLDocument {
        var schemas: [String: CSDLSchema] = [:]
        var order: [String] = []
        func schema(_ namespace: String) -> CSDLSchema {
            if let existing = schemas[namespace] { return existing }
            order.append(namespace)
            return CSDLSchema(namespace: namespace)
        }
        for type in model.entityTypes {
            var csdl = CSDLEntityType(name: type.name)
            csdl.key = type.keyProperties.map(\.name)
            csdl.properties = type.properties.map { property in
                var p = CSDLProperty(name: property.name, type: property.type.name)
                p.nullable = property.isNullable
                p.maxLength = property.maxLength.map(String.init) ?? (property.type == .string || property.type == .binary ? "Max" : nil)
                p.fixedLength = property.isFixedLength
                p.unicode = property.isUnicode
                p.precision = property.precision
                p.scale = property.scale
                p.defaultValue = property.defaultValue
                // Every entity has an ETag: of its concurrency tokens, or of all its columns when the
                // schema names none (`EntityTag`). Saying so lets metadata-driven clients (WCF,
                // pyslet) send If-Match; keys never change, and WCF refuses them as tokens.
                p.concurrencyMode = property.isConcurrencyToken || (type.concurrencyProperties.isEmpty && !property.isKey) ? "Fixed" : nil
                if property.isStoreGenerated {
                    // As Entity Framework services publish it: clients then leave the key out of creates.
                    p.annotations = [CSDLAnnotation(namespace: CSDLNamespaces.annotation, name: "StoreGeneratedPattern", value: "Identity")]
                }
                return p
            }
            csdl.navigationProperties = type.navigationProperties.map {
                CSDLNavigationProperty(name: $0.name, relationship: $0.relationship, fromRole: $0.fromRole, toRole: $0.toRole)
            }
            var s = schema(type.namespace)
            s.entityTypes.append(csdl)
            schemas[type.namespace] = s
        }
        for association in model.associations {
            var csdl = CSDLAssociation(name: association.name)
            var principal = CSDLAssociationEnd(role: association.principalRole, type: association.principal.qualifiedName,
                                               multiplicity: association.principalMultiplicity)
            if association.foreignKey.cascadesOnDelete { principal.onDelete = "Cascade" }
            let dependent = CSDLAssociationEnd(role: association.dependentRole, type: association.dependent.qualifiedName,
                                               multiplicity: association.dependentMultiplicity)
            csdl.ends = [principal, dependent]
            if !association.hasHiddenForeignKey {
                let dependentNames = association.foreignKey.columnIndexes.map { association.dependent.properties[$0].name }
                csdl.referentialConstraint = CSDLReferentialConstraint(
                    principalRole: association.principalRole, principalProperties: association.principal.keyProperties.map(\.name),
                    dependentRole: association.dependentRole, dependentProperties: dependentNames)
            }
            let namespace = String(association.qualifiedName.dropLast(association.name.count + 1))
            var s = schema(namespace)
            s.associations.append(csdl)
            schemas[namespace] = s
        }
        var container = CSDLEntityContainer(name: model.containerName)
        container.isDefault = true
        container.entitySets = model.entitySets.map { CSDLEntitySet(name: $0.name, entityType: $0.entityType.qualifiedName) }
        container.associationSets = model.associations.map { association in
            var set = CSDLAssociationSet(name: association.associationSetName, association: association.qualifiedName)
            set.ends = [
                .init(role: association.principalRole, entitySet: association.principal.entitySet?.name ?? ""),
                .init(role: association.dependentRole, entitySet: association.dependent.entitySet?.name ?? ""),
            ]
            return set
        }
        container.functionImports = model.functionImports.map(functionImport)
        var main = schema(model.namespace)
        main.entityContainers.append(container)
        schemas[model.namespace] = main
        return CSDLDocument(edmxVersion: "1.0", dataServiceVersion: "2.0", schemas: order.compactMap { schemas[$0] })
    }

    /// A service operation as clients see it: its signature, not the query that answers it.
    private static func functionImport(_ operation: FunctionImport) -> CSDLFunctionImport {
        var csdl = CSDLFunctionImport(name: operation.name)
        switch operation.result {
        case .entities:
            csdl.returnType = "Collection(\(operation.entitySet.entityType.qualifiedName))"
            csdl.entitySet = operation.entitySet.name
        case .value(let type, _):
            csdl.returnType = type.name
        }
        csdl.httpMethod = operation.httpMethod
        csdl.parameters = operation.parameters.map { parameter in
            var p = CSDLFunctionImport.Parameter(name: parameter.name, type: parameter.type.name)
            p.mode = "In"
            p.nullable = parameter.isNullable
            return p
        }
        return csdl
    }

    public static func xml(for model: EntityModel) -> String {
        CSDLWriter.write(document(for: model))
    }
}
