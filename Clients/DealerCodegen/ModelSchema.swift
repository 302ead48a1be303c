import CSDL

/// What the generator writes, resolved from a CSDL document: Swift names chosen, base types
/// flattened, navigation properties pointed at their target types. Everything keeps the
/// document's order, so the same document always gives the same model.
struct ModelSchema {
    struct EntitySetEnum {
        var swiftName: String
        var containerName: String
        /// (Swift case name, entity set name)
        var cases: [(swiftName: String, setName: String)]
    }

    struct Property {
        var name: String
        var swiftName: String
        var edmType: String
        var mapping: EDMTypeMapping
        var nullable: Bool
        var isKey: Bool
        /// Assigned by the server (StoreGeneratedPattern Identity or Computed): not sent in writes.
        var isServerGenerated: Bool
        var facets: [String]
        /// The schema's `DefaultValue`, as written there.
        var defaultValue: String?
    }

    struct Navigation {
        var name: String
        var swiftName: String
        /// The Swift type of the related entity, nil if the schema does not say.
        var targetSwiftName: String?
        var targetTypeName: String
        var isCollection: Bool
        /// Stored out of line, because the types contain each other through to-one properties.
        var isBoxed: Bool
        var storageName: String
    }

    struct EntityType {
        var qualifiedName: String
        var swiftName: String
        var properties: [Property]
        var navigations: [Navigation]
        /// The key properties, in key order.
        var keys: [Property]
        /// The entity set and its case in the enum, if a set holds this type (or a base type).
        var entitySet: (setName: String, enumName: String, caseName: String)?
    }

    /// A service operation, written as a `RestConnection` method.
    struct Function {
        enum Result {
            /// No body worth reading.
            case none
            /// An entity or complex value; a collection of them when `isCollection`.
            case decodable(swiftType: String, isCollection: Bool)
            /// An EDM simple type; a collection of them when `isCollection`.
            case primitive(swiftType: String, isCollection: Bool)
        }

        struct Parameter {
            var name: String
            var swiftName: String
            var edmType: String
            var swiftType: String
            var nullable: Bool
        }

        var name: String
        var swiftName: String
        var httpMethod: String
        var parameters: [Parameter]
        var returnType: String?
        var result: Result
        /// Why no method can be written (a parameter of a type with no URI literal), if so.
        var unsupportedReason: String?
    }

    var entitySetEnums: [EntitySetEnum] = []
    var functions: [Function] = []
    var entityTypes: [EntityType] = []
    var schemaNamespaces: [String] = []

    /// Member names the generated code uses itself; schema names that would clash are changed.
    static let reservedMemberNames: Set<String> = [
        "metadata", "uri", "entitySet", "entitySetName", "keyPropertyNames", "navigationProperties", "init", "encode",
        "CodingKeys", "Type", "self", "Self",
    ]

    /// Type names the generated code refers to; entity types that would clash are changed.
    static let reservedTypeNames: Set<String> = [
        "String", "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt8", "Float", "Double", "Decimal",
        "Date", "Data", "UUID", "URL", "JSONValue", "JSONObject", "ODataMetadata", "ODataIndirect",
        "ODataEntity", "ODataLiteral", "ODataPrimitive", "ODataDuration", "ODataDateTimeOffset", "Codable", "Sendable", "Equatable", "Decoder",
        "Encoder", "CodingKey", "Optional", "Array", "Dictionary", "Set", "Error", "Any", "AnyObject",
        "Self", "Type", "Protocol", "Never", "Void", "Foundation", "RestConnection", "Swift", "Character",
        "Substring", "Hashable", "CaseIterable", "RawRepresentable", "Identifiable", "PartialKeyPath",
    ]

    /// `RestConnection`'s own members, which a generated operation method must not shadow.
    static let reservedFunctionNames: Set<String> = [
        "all", "batch", "callFunction", "count", "create", "delete", "get", "getAll", "getCollection", "link", "load",
        "perform", "send", "serviceRoot", "unlink", "update", "url", "baseURL", "credentials", "defaultHeaders",
        "delegate", "timeout", "trust", "tunnelling", "init",
    ]

    /// - Parameter typePrefix: put before every generated type's name (`DC` gives `DCPerson`).
    init(document: CSDLDocument, typePrefix: String = "") {
        let index = SchemaIndex(document: document)
        schemaNamespaces = document.schemas.map(\.namespace)
        var typeNames = NameAllocator(reserved: ModelSchema.reservedTypeNames)

        // Entity-set enums: one per container, named plainly when there is just one.
        let containers = document.schemas.flatMap(\.entityContainers)
        var setCase: [String: (setName: String, enumName: String, caseName: String)] = [:]
        for container in containers {
            let preferred = typePrefix + (containers.count == 1 ? "EntitySet" : SwiftNaming.upperCamel(container.name) + "EntitySet")
            let enumName = typeNames.allocate([preferred])
            var caseNames = NameAllocator(reserved: ["init", "rawValue", "allCases", "self", "Type"])
            var cases: [(swiftName: String, setName: String)] = []
            for set in container.entitySets {
                let caseName = caseNames.allocate([SwiftNaming.lowerCamel(set.name), SwiftNaming.sanitized(set.name)])
                cases.append((caseName, set.name))
                let qualified = index.qualifiedTypeName(set.entityType)
                if setCase[qualified] == nil {
                    setCase[qualified] = (set.name, enumName, caseName)
                }
            }
            entitySetEnums.append(EntitySetEnum(swiftName: enumName, containerName: container.name, cases: cases))
        }

        // Type names first, so navigation properties can refer to any type.
        var swiftTypeName: [String: String] = [:]
        for (qualified, type) in index.entityTypes {
            let candidate = typePrefix + SwiftNaming.upperCamel(type.name)
            swiftTypeName[qualified] = typeNames.allocate([candidate, candidate + "Entity"])
        }

        // To-one edges, to find the types that contain each other.
        var toOneTargets: [String: [String]] = [:]
        for (qualified, _) in index.entityTypes {
            for (_, navigation) in index.allNavigations(of: qualified) {
                if let target = index.navigationTarget(navigation), !target.isCollection {
                    toOneTargets[qualified, default: []].append(target.typeName)
                }
            }
        }
        func reaches(_ start: String, _ goal: String) -> Bool {
            var seen: Set<String> = []
            var stack = [start]
            while let current = stack.popLast() {
                if current == goal { return true }
                guard seen.insert(current).inserted else { continue }
                stack += toOneTargets[current] ?? []
            }
            return false
        }

        for (qualified, _) in index.entityTypes {
            var members = NameAllocator(reserved: ModelSchema.reservedMemberNames)
            let keyNames = index.key(of: qualified)
            var properties: [Property] = []
            for (_, property) in index.allProperties(of: qualified) {
                let swiftName = members.allocate([SwiftNaming.lowerCamel(property.name), SwiftNaming.sanitized(property.name),
                                                  SwiftNaming.lowerCamel(property.name) + "Value"])
                let generated = property.annotations.value(namespace: CSDLNamespaces.annotation, name: "StoreGeneratedPattern")
                properties.append(Property(
                    name: property.name, swiftName: swiftName, edmType: property.type,
                    mapping: EDMTypeMapping.mapping(for: property.type),
                    nullable: property.nullable && !keyNames.contains(property.name),
                    isKey: keyNames.contains(property.name),
                    isServerGenerated: generated == "Identity" || generated == "Computed",
                    facets: ModelSchema.facets(of: property), defaultValue: property.defaultValue))
            }
            var navigations: [Navigation] = []
            for (_, navigation) in index.allNavigations(of: qualified) {
                let swiftName = members.allocate([SwiftNaming.lowerCamel(navigation.name), SwiftNaming.sanitized(navigation.name),
                                                  SwiftNaming.lowerCamel(navigation.name) + "Value"])
                let target = index.navigationTarget(navigation)
                let isCollection = target?.isCollection ?? false
                let isBoxed = target.map { !isCollection && reaches($0.typeName, qualified) } ?? false
                navigations.append(Navigation(
                    name: navigation.name, swiftName: swiftName,
                    targetSwiftName: target.flatMap { swiftTypeName[$0.typeName] },
                    targetTypeName: target?.typeName ?? navigation.toRole,
                    isCollection: isCollection, isBoxed: isBoxed, storageName: ""))
            }
            // Storage for boxed properties is named after them, once every public name is taken.
            for i in navigations.indices where navigations[i].isBoxed {
                navigations[i].storageName = members.allocate(["_" + navigations[i].swiftName, "_" + navigations[i].swiftName + "Storage"])
            }
            let keys = keyNames.compactMap { name in properties.first { $0.name == name } }
            let set = index.ancestry(of: qualified).lazy.compactMap { setCase[$0] }.first
            entityTypes.append(EntityType(qualifiedName: qualified, swiftName: swiftTypeName[qualified]!,
                                          properties: properties, navigations: navigations, keys: keys, entitySet: set))
        }
        functions = ModelSchema.functions(of: document, index: index, swiftTypeName: swiftTypeName)
    }

    private static func functions(of document: CSDLDocument, index: SchemaIndex, swiftTypeName: [String: String]) -> [Function] {
        var names = NameAllocator(reserved: reservedFunctionNames)
        var functions: [Function] = []
        for container in document.schemas.flatMap(\.entityContainers) {
            for function in container.functionImports {
                let swiftName = names.allocate([SwiftNaming.lowerCamel(function.name), SwiftNaming.lowerCamel(function.name) + "Function"])
                var parameterNames = NameAllocator(reserved: ["query", "self"])
                var unsupported: String?
                let parameters = function.parameters.map { parameter in
                    let mapping = EDMTypeMapping.mapping(for: parameter.type)
                    if mapping.keyLiteral == .unsupported, unsupported == nil {
                        unsupported = "parameter \(parameter.name) is of type \(parameter.type), which has no URI literal here"
                    }
                    let swiftName = parameterNames.allocate([SwiftNaming.lowerCamel(parameter.name), SwiftNaming.sanitized(parameter.name) + "Value"])
                    return Function.Parameter(name: parameter.name, swiftName: swiftName, edmType: parameter.type,
                                              swiftType: mapping.swiftType, nullable: parameter.nullable ?? true)
                }
                functions.append(Function(
                    name: function.name, swiftName: swiftName, httpMethod: (function.httpMethod ?? "GET").uppercased(),
                    parameters: parameters, returnType: function.returnType,
                    result: result(of: function.returnType, index: index, swiftTypeName: swiftTypeName),
                    unsupportedReason: unsupported))
            }
        }
        return functions
    }

    private static func result(of returnType: String?, index: SchemaIndex, swiftTypeName: [String: String]) -> Function.Result {
        guard var type = returnType, !type.isEmpty else { return .none }
        var isCollection = false
        if type.hasPrefix("Collection("), type.hasSuffix(")") {
            type = String(type.dropFirst("Collection(".count).dropLast())
            isCollection = true
        }
        if type.hasPrefix("Edm.") {
            return .primitive(swiftType: EDMTypeMapping.mapping(for: type).swiftType, isCollection: isCollection)
        }
        // An entity type of this schema is decoded as its model; a complex type stays untyped JSON.
        let swiftType = swiftTypeName[index.qualifiedTypeName(type)] ?? "JSONValue"
        return .decodable(swiftType: swiftType, isCollection: isCollection)
    }

    /// Facets worth a word in a property's comment.
    private static func facets(of property: CSDLProperty) -> [String] {
        var facets: [String] = []
        if let maxLength = property.maxLength { facets.append("MaxLength \(maxLength)") }
        if let precision = property.precision { facets.append("Precision \(precision)") }
        if let scale = property.scale { facets.append("Scale \(scale)") }
        if let value = property.defaultValue { facets.append("default \(value)") }
        if property.concurrencyMode == "Fixed" { facets.append("concurrency token") }
        return facets
    }
}

/// Lookups over a CSDL document by qualified name (namespace or alias), in document order.
private struct SchemaIndex {
    /// (qualified name, type) in document order.
    var entityTypes: [(String, CSDLEntityType)] = []
    private var typesByName: [String: CSDLEntityType] = [:]
    private var qualifiedByName: [String: String] = [:]
    private var associations: [String: CSDLAssociation] = [:]

    init(document: CSDLDocument) {
        for schema in document.schemas {
            for type in schema.entityTypes {
                let qualified = schema.namespace + "." + type.name
                entityTypes.append((qualified, type))
                for prefix in [schema.namespace] + (schema.alias.map { [$0] } ?? []) {
                    typesByName[prefix + "." + type.name] = type
                    qualifiedByName[prefix + "." + type.name] = qualified
                }
            }
            for association in schema.associations {
                for prefix in [schema.namespace] + (schema.alias.map { [$0] } ?? []) {
                    associations[prefix + "." + association.name] = association
                }
            }
        }
    }

    /// The namespace-qualified name for a name written with a namespace or an alias.
    func qualifiedTypeName(_ name: String) -> String {
        qualifiedByName[name] ?? name
    }

    /// The type and its base types, most derived first; stops at a cycle or an unknown base.
    func ancestry(of qualified: String) -> [String] {
        var chain: [String] = []
        var current: String? = qualified
        while let name = current, !chain.contains(name), let type = typesByName[name] {
            chain.append(name)
            current = type.baseType.map(qualifiedTypeName)
        }
        return chain
    }

    /// The key, which a derived type takes from its root.
    func key(of qualified: String) -> [String] {
        for name in ancestry(of: qualified).reversed() {
            if let key = typesByName[name]?.key, !key.isEmpty { return key }
        }
        return []
    }

    /// Properties of the type and its base types, base first.
    func allProperties(of qualified: String) -> [(String, CSDLProperty)] {
        ancestry(of: qualified).reversed().flatMap { name in
            (typesByName[name]?.properties ?? []).map { (name, $0) }
        }
    }

    func allNavigations(of qualified: String) -> [(String, CSDLNavigationProperty)] {
        ancestry(of: qualified).reversed().flatMap { name in
            (typesByName[name]?.navigationProperties ?? []).map { (name, $0) }
        }
    }

    /// The related type and whether there are many of them, from the association's end.
    func navigationTarget(_ navigation: CSDLNavigationProperty) -> (typeName: String, isCollection: Bool)? {
        guard let association = associations[navigation.relationship],
              let end = association.ends.first(where: { $0.role == navigation.toRole }) else { return nil }
        let typeName = qualifiedTypeName(end.type)
        guard typesByName[typeName] != nil else { return nil }
        return (typeName, end.multiplicity == "*")
    }
}
