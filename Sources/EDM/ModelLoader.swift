import CSDL
import Foundation

/// Resolves a CSDL document into an `EntityModel`, checking that every reference resolves and
/// that the storage mapping is complete.
public enum ModelLoader {
    public static func load(contentsOf url: URL) throws -> EntityModel {
        let document: CSDLDocument
        do {
            document = try CSDLReader.read(contentsOf: url)
        } catch let error as CSDLReadError {
            throw ModelError("\(url.lastPathComponent): \(error)")
        }
        return try load(document)
    }

    public static func load(_ document: CSDLDocument) throws -> EntityModel {
        guard let containerSchema = document.schemas.first(where: { schema in schema.entityContainers.contains { $0.isDefault } })
                ?? document.schemas.first(where: { !$0.entityContainers.isEmpty }),
              let container = containerSchema.entityContainers.first(where: \.isDefault) ?? containerSchema.entityContainers.first
        else { throw ModelError("the schema declares no EntityContainer") }

        var aliases: [String: String] = [:]
        for schema in document.schemas {
            if let alias = schema.alias { aliases[alias] = schema.namespace }
        }
        func qualify(_ name: String) -> String {
            guard let dot = name.lastIndex(of: ".") else { return name }
            let prefix = String(name[..<dot])
            if let namespace = aliases[prefix] { return namespace + name[dot...] }
            return name
        }

        // Entity types' properties. A type is built once its hidden foreign-key columns are
        // known too, so that every part of it is a `let`: the associations below say which.
        var drafts: [EntityTypeDraft] = []
        var draftsByName: [String: EntityTypeDraft] = [:]
        var csdlTypes: [String: CSDLEntityType] = [:]
        for schema in document.schemas {
            for csdl in schema.entityTypes {
                guard csdl.baseType == nil else {
                    throw ModelError("EntityType \(csdl.name): type inheritance (BaseType) is not supported")
                }
                let draft = try makeEntityTypeDraft(csdl, namespace: schema.namespace)
                if draftsByName[draft.qualifiedName] != nil { throw ModelError("EntityType \(draft.qualifiedName) is declared twice") }
                drafts.append(draft)
                draftsByName[draft.qualifiedName] = draft
                csdlTypes[draft.qualifiedName] = csdl
            }
        }

        // Associations, with the side that holds the foreign key.
        var associationSetNames: [String: String] = [:]
        for set in container.associationSets { associationSetNames[qualify(set.association)] = set.name }
        var associationDrafts: [AssociationDraft] = []
        var hiddenColumns: [String: [HiddenColumn]] = [:]
        for schema in document.schemas {
            for csdl in schema.associations {
                let qualifiedName = schema.namespace + "." + csdl.name
                associationDrafts.append(try makeAssociation(csdl, qualifiedName: qualifiedName, types: draftsByName,
                                                             hiddenColumns: &hiddenColumns, qualify: qualify,
                                                             setName: associationSetNames[qualifiedName] ?? csdl.name))
            }
        }

        var types: [EntityType] = []
        var typesByName: [String: EntityType] = [:]
        for draft in drafts {
            let type = EntityType(name: draft.name, namespace: draft.namespace, tableName: draft.table, properties: draft.properties,
                                  hiddenColumns: hiddenColumns[draft.qualifiedName] ?? [], index: types.count)
            types.append(type)
            typesByName[type.qualifiedName] = type
        }
        var associations: [Association] = []
        var associationsByName: [String: Association] = [:]
        for draft in associationDrafts {
            let association = Association(name: draft.name, qualifiedName: draft.qualifiedName, principalRole: draft.principalRole,
                                          dependentRole: draft.dependentRole, principal: typesByName[draft.principal]!,
                                          dependent: typesByName[draft.dependent]!, principalMultiplicity: draft.principalMultiplicity,
                                          dependentMultiplicity: draft.dependentMultiplicity, foreignKey: draft.foreignKey,
                                          associationSetName: draft.associationSetName)
            associations.append(association)
            associationsByName[association.qualifiedName] = association
        }

        // Navigation properties.
        for type in types {
            guard let csdl = csdlTypes[type.qualifiedName] else { continue }
            for nav in csdl.navigationProperties {
                let where_ = "NavigationProperty \(type.name).\(nav.name)"
                guard type.property(named: nav.name) == nil, type.navigationByName[nav.name] == nil else {
                    throw ModelError("\(where_): the name is already used by another member")
                }
                guard let association = associationsByName[qualify(nav.relationship)] else {
                    throw ModelError("\(where_): unknown Relationship \(nav.relationship)")
                }
                let roles = [association.principalRole: association.principal, association.dependentRole: association.dependent]
                guard let from = roles[nav.fromRole], from === type else {
                    throw ModelError("\(where_): FromRole \(nav.fromRole) is not an end of type \(type.name) in \(association.name)")
                }
                guard let target = roles[nav.toRole], nav.toRole != nav.fromRole else {
                    throw ModelError("\(where_): ToRole \(nav.toRole) is not the other end of \(association.name)")
                }
                let multiplicity = nav.toRole == association.principalRole ? association.principalMultiplicity : association.dependentMultiplicity
                let navigation = NavigationProperty(name: nav.name, relationship: association.qualifiedName, fromRole: nav.fromRole,
                                                    toRole: nav.toRole, source: type, target: target, targetMultiplicity: multiplicity,
                                                    association: association, index: type.navigationProperties.count)
                type.navigationProperties.append(navigation)
                type.navigationByName[nav.name] = navigation
            }
        }

        // Entity sets.
        var sets: [EntitySet] = []
        for csdl in container.entitySets {
            guard let type = typesByName[qualify(csdl.entityType)] else {
                throw ModelError("EntitySet \(csdl.name): unknown EntityType \(csdl.entityType)")
            }
            guard type.entitySet == nil else {
                throw ModelError("EntitySet \(csdl.name): \(type.qualifiedName) already has the set \(type.entitySet!.name); one set per type is supported")
            }
            guard sets.allSatisfy({ $0.name != csdl.name }) else { throw ModelError("EntitySet \(csdl.name) is declared twice") }
            var pageSize: Int?
            if let text = csdl.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.pageSize) {
                guard let size = Int(text), size > 0 else { throw ModelError("EntitySet \(csdl.name): store:PageSize must be a positive integer") }
                pageSize = size
            }
            let set = EntitySet(name: csdl.name, entityType: type, pageSize: pageSize)
            type.entitySet = set
            sets.append(set)
        }
        for type in types where type.entitySet == nil {
            throw ModelError("EntityType \(type.qualifiedName) has no EntitySet in \(container.name)")
        }

        var functionImports: [FunctionImport] = []
        for csdl in container.functionImports {
            guard sets.allSatisfy({ $0.name != csdl.name }), functionImports.allSatisfy({ $0.name != csdl.name }) else {
                throw ModelError("FunctionImport \(csdl.name): the name is taken by another set or function import")
            }
            functionImports.append(try makeFunctionImport(csdl, sets: sets, qualify: qualify))
        }

        return EntityModel(namespace: containerSchema.namespace, containerName: container.name,
                           entityTypes: types, entitySets: sets, associations: associations, functionImports: functionImports)
    }

    private static func makeEntityTypeDraft(_ csdl: CSDLEntityType, namespace: String) throws -> EntityTypeDraft {
        guard !csdl.key.isEmpty else { throw ModelError("EntityType \(csdl.name) has no Key") }
        var properties: [Property] = []
        var seen = Set<String>()
        for (index, p) in csdl.properties.enumerated() {
            let where_ = "Property \(csdl.name).\(p.name)"
            guard seen.insert(p.name).inserted else { throw ModelError("\(where_) is declared twice") }
            guard let type = PrimitiveType(rawValue: p.type) else {
                throw ModelError("\(where_): type \(p.type) is not a supported EDM simple type")
            }
            var maxLength: Int?
            if let text = p.maxLength, text.lowercased() != "max" {
                guard let value = Int(text), value > 0 else { throw ModelError("\(where_): MaxLength \(text) is not a positive integer") }
                maxLength = value
            }
            let isKey = csdl.key.contains(p.name)
            if isKey && p.nullable { throw ModelError("\(where_): a key property must be Nullable=\"false\"") }
            let storeGenerated = p.annotations.value(namespace: CSDLNamespaces.annotation, name: "StoreGeneratedPattern") == "Identity"
            if storeGenerated && !(isKey && csdl.key.count == 1 && type.isIntegral) {
                throw ModelError("\(where_): StoreGeneratedPattern=\"Identity\" is supported on a single integer key only")
            }
            let column = p.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.column) ?? p.name
            let indexAnnotation = p.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.indexed)
            let indexed = indexAnnotation != nil && indexAnnotation != "false"
            let indexedWith = indexed && indexAnnotation != "true"
                ? indexAnnotation!.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
                : []
            for name in indexedWith {
                guard csdl.properties.contains(where: { $0.name == name }), name != p.name else {
                    throw ModelError("\(where_): store:Indexed=\"\(indexAnnotation!)\" names '\(name)', which is not another property of \(csdl.name) (use \"true\" to index the column alone)")
                }
            }
            properties.append(Property(
                name: p.name, type: type, isNullable: p.nullable, maxLength: maxLength, isFixedLength: p.fixedLength,
                isUnicode: p.unicode, precision: p.precision, scale: p.scale, defaultValue: p.defaultValue,
                isConcurrencyToken: p.concurrencyMode == "Fixed", isStoreGenerated: storeGenerated, isKey: isKey,
                isIndexed: indexed, indexedWith: indexedWith, columnName: column, columnIndex: index))
        }
        for key in csdl.key where !seen.contains(key) {
            throw ModelError("EntityType \(csdl.name): key property \(key) is not declared")
        }
        let table = csdl.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.table) ?? csdl.name
        return EntityTypeDraft(name: csdl.name, namespace: namespace, table: table, properties: properties)
    }

    /// The association's ends and foreign key; foreign-key columns that are not properties of
    /// the dependent are added to its `hiddenColumns`.
    private static func makeAssociation(_ csdl: CSDLAssociation, qualifiedName: String, types: [String: EntityTypeDraft],
                                        hiddenColumns: inout [String: [HiddenColumn]],
                                        qualify: (String) -> String, setName: String) throws -> AssociationDraft {
        let where_ = "Association \(csdl.name)"
        guard csdl.ends.count == 2 else { throw ModelError("\(where_) must have exactly two ends") }
        guard let typeA = types[qualify(csdl.ends[0].type)], let typeB = types[qualify(csdl.ends[1].type)] else {
            throw ModelError("\(where_): an end names an unknown type")
        }
        for end in csdl.ends where !["1", "0..1", "*"].contains(end.multiplicity) {
            throw ModelError("\(where_): End \(end.role) has an invalid Multiplicity \(end.multiplicity)")
        }

        // Which end is the dependent, holding the foreign key?
        let dependentIndex: Int
        if let constraint = csdl.referentialConstraint {
            guard let index = csdl.ends.firstIndex(where: { $0.role == constraint.dependentRole }),
                  csdl.ends[1 - index].role == constraint.principalRole else {
                throw ModelError("\(where_): the ReferentialConstraint roles do not match the ends")
            }
            dependentIndex = index
        } else if let index = csdl.ends.firstIndex(where: { $0.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.foreignKey) != nil }) {
            dependentIndex = index
        } else if csdl.ends[0].multiplicity == "*" && csdl.ends[1].multiplicity != "*" {
            dependentIndex = 0
        } else if csdl.ends[1].multiplicity == "*" && csdl.ends[0].multiplicity != "*" {
            dependentIndex = 1
        } else if csdl.ends[1].multiplicity == "0..1" && csdl.ends[0].multiplicity == "1" {
            dependentIndex = 1
        } else {
            throw ModelError("\(where_): many-to-many associations are not supported; model the link as an entity type")
        }
        let dependentEnd = csdl.ends[dependentIndex]
        let principalEnd = csdl.ends[1 - dependentIndex]
        guard principalEnd.multiplicity != "*" else {
            throw ModelError("\(where_): the principal end \(principalEnd.role) cannot have Multiplicity \"*\"")
        }
        let principal = dependentIndex == 0 ? typeB : typeA
        let dependent = dependentIndex == 0 ? typeA : typeB
        let principalKey = principal.keyProperties

        var columns: [String] = []
        var indexes: [Int] = []
        if let constraint = csdl.referentialConstraint {
            guard constraint.principalProperties == principalKey.map(\.name) else {
                throw ModelError("\(where_): the ReferentialConstraint must name the principal's key, in key order")
            }
            guard constraint.dependentProperties.count == principalKey.count else {
                throw ModelError("\(where_): the ReferentialConstraint has \(constraint.dependentProperties.count) dependent properties for a key of \(principalKey.count)")
            }
            for name in constraint.dependentProperties {
                guard let property = dependent.property(named: name) else {
                    throw ModelError("\(where_): dependent property \(dependent.name).\(name) is not declared")
                }
                columns.append(property.columnName)
                indexes.append(property.columnIndex)
            }
        } else {
            let declared = dependentEnd.annotations.value(namespace: StorageAnnotations.namespace, name: StorageAnnotations.foreignKey)
            let names = declared.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
                ?? principalKey.map { "\(principalEnd.role)_\($0.name)" }
            guard names.count == principalKey.count, names.allSatisfy({ !$0.isEmpty }) else {
                throw ModelError("\(where_): store:ForeignKey names \(names.count) columns for a key of \(principalKey.count)")
            }
            for (name, keyProperty) in zip(names, principalKey) {
                if let property = dependent.properties.first(where: { $0.columnName == name }) {
                    columns.append(name)
                    indexes.append(property.columnIndex)
                } else if let hidden = hiddenColumns[dependent.qualifiedName, default: []].first(where: { $0.name == name }) {
                    columns.append(name)
                    indexes.append(hidden.columnIndex)
                } else {
                    let index = dependent.properties.count + hiddenColumns[dependent.qualifiedName, default: []].count
                    hiddenColumns[dependent.qualifiedName, default: []].append(HiddenColumn(name: name, type: keyProperty.type, columnIndex: index))
                    columns.append(name)
                    indexes.append(index)
                }
            }
        }
        let foreignKey = ForeignKey(associationName: csdl.name, columns: columns, columnIndexes: indexes,
                                    isOptional: principalEnd.multiplicity == "0..1",
                                    cascadesOnDelete: principalEnd.onDelete == "Cascade")
        return AssociationDraft(name: csdl.name, qualifiedName: qualifiedName, principalRole: principalEnd.role,
                           dependentRole: dependentEnd.role, principal: principal.qualifiedName, dependent: dependent.qualifiedName,
                           principalMultiplicity: principalEnd.multiplicity, dependentMultiplicity: dependentEnd.multiplicity,
                           foreignKey: foreignKey, associationSetName: setName)
    }
}

/// An entity type's declared part, until the associations have said which foreign-key columns
/// it holds besides its properties.
private struct EntityTypeDraft {
    let name: String
    let namespace: String
    let table: String
    let properties: [Property]

    var qualifiedName: String { namespace + "." + name }
    var keyProperties: [Property] { properties.filter(\.isKey) }

    func property(named name: String) -> Property? { properties.first { $0.name == name } }
}

/// An association as `Association` holds it, with its two types by qualified name until the
/// types are built.
private struct AssociationDraft {
    let name: String
    let qualifiedName: String
    let principalRole: String
    let dependentRole: String
    let principal: String
    let dependent: String
    let principalMultiplicity: String
    let dependentMultiplicity: String
    let foreignKey: ForeignKey
    let associationSetName: String
}
