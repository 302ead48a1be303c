import CSDL
import EDM

/// The entity model a role sees: the schema without its hidden sets (and their types and
/// relationships) and hidden properties. Made from the schema's document by the same loader as
/// the full model, so every layer (parser, `$metadata`, serializers, the store's statements)
/// works on it unchanged and never learns the hidden names: naming one is an unknown name, its
/// column is never selected, and a PUT, which sets what its type has, leaves it as it is.
/// A role's ETags are digests of what it sees: they reveal nothing of a hidden property, and a
/// change to one alone does not change them (nor make a role's If-Match fail).
enum RoleModel {
    /// - Parameters:
    ///   - hiddenSets: names of the sets the role cannot see.
    ///   - hiddenProperties: by entity type name (unqualified), the properties it cannot see.
    static func view(of document: CSDLDocument, hiddenSets: Set<String>, hiddenProperties: [String: Set<String>]) throws -> EntityModel {
        func local(_ name: String) -> String { name.split(separator: ".").last.map(String.init) ?? name }
        var document = document
        var hiddenTypes = Set<String>()
        var visibleTypes = Set<String>()
        for schema in document.schemas {
            for container in schema.entityContainers {
                for set in container.entitySets {
                    if hiddenSets.contains(set.name) { hiddenTypes.insert(local(set.entityType)) } else { visibleTypes.insert(local(set.entityType)) }
                }
            }
        }
        hiddenTypes.subtract(visibleTypes)
        var hiddenAssociations = Set<String>()
        for schema in document.schemas {
            for association in schema.associations where association.ends.contains(where: { hiddenTypes.contains(local($0.type)) }) {
                hiddenAssociations.insert(association.name)
            }
        }
        for s in document.schemas.indices {
            document.schemas[s].associations.removeAll { hiddenAssociations.contains($0.name) }
            document.schemas[s].entityTypes.removeAll { hiddenTypes.contains($0.name) }
            for t in document.schemas[s].entityTypes.indices {
                var type = document.schemas[s].entityTypes[t]
                type.navigationProperties.removeAll { hiddenAssociations.contains(local($0.relationship)) }
                if let hidden = hiddenProperties[type.name] { type.properties.removeAll { hidden.contains($0.name) } }
                document.schemas[s].entityTypes[t] = type
            }
            for c in document.schemas[s].entityContainers.indices {
                document.schemas[s].entityContainers[c].entitySets.removeAll { hiddenSets.contains($0.name) }
                document.schemas[s].entityContainers[c].associationSets.removeAll { hiddenAssociations.contains(local($0.association)) }
                document.schemas[s].entityContainers[c].functionImports.removeAll {
                    reaches($0, hiddenSets: hiddenSets, hiddenProperties: hiddenProperties.values.reduce(into: Set()) { $0.formUnion($1) })
                }
            }
        }
        return try ModelLoader.load(document)
    }

    /// Whether a service operation reads what the role cannot see: a hidden set (its `EntitySet`,
    /// or the `store:From` it aggregates over), or a hidden property named in its storage
    /// annotations (its filter, order or aggregate). Such an operation does not exist for the
    /// role, as the set or property does not: its answers would otherwise reveal them.
    private static func reaches(_ operation: CSDLFunctionImport, hiddenSets: Set<String>, hiddenProperties: Set<String>) -> Bool {
        let storage = operation.annotations.filter { $0.namespace == StorageAnnotations.namespace }
        let set = operation.entitySet ?? storage.first { $0.name == StorageAnnotations.from }?.value
        if let set, hiddenSets.contains(set) { return true }
        return storage.contains { annotation in
            let words = annotation.value.split { !($0.isLetter || $0.isNumber || $0 == "_") }
            return words.contains { hiddenProperties.contains(String($0)) }
        }
    }

    /// Why a property cannot be hidden, or nil when it can: a key identifies the entity in every
    /// URI and payload, and a foreign key of a relationship the role sees is what its links are
    /// made of.
    static func reasonNotHideable(_ property: String, of typeName: String, in document: CSDLDocument) -> String? {
        for schema in document.schemas {
            if let type = schema.entityTypes.first(where: { $0.name == typeName }), type.key.contains(property) {
                return "it is a key"
            }
            for association in schema.associations {
                guard let constraint = association.referentialConstraint else { continue }
                for (role, properties) in [(constraint.principalRole, constraint.principalProperties),
                                           (constraint.dependentRole, constraint.dependentProperties)]
                where properties.contains(property) {
                    if let end = association.ends.first(where: { $0.role == role }),
                       end.type.split(separator: ".").last.map(String.init) == typeName {
                        return "it is a foreign key of \(association.name)"
                    }
                }
            }
        }
        return nil
    }
}
