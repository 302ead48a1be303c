// The EDMX/CSDL document as written: names and attributes, nothing resolved.
// Both the gateway (which resolves it into an EDM model) and the client code generator read it.

/// An attribute from a namespace other than CSDL's own: an annotation such as
/// `annotation:StoreGeneratedPattern` or `store:ForeignKey`.
public struct CSDLAnnotation: Sendable, Equatable {
    public var namespace: String
    public var name: String
    public var value: String

    public init(namespace: String, name: String, value: String) {
        self.namespace = namespace
        self.name = name
        self.value = value
    }
}

extension Array where Element == CSDLAnnotation {
    public func value(namespace: String, name: String) -> String? {
        first { $0.namespace == namespace && $0.name == name }?.value
    }
}

public struct CSDLDocument: Sendable, Equatable {
    public var edmxVersion: String
    public var dataServiceVersion: String?
    public var schemas: [CSDLSchema]

    public init(edmxVersion: String = "1.0", dataServiceVersion: String? = nil, schemas: [CSDLSchema] = []) {
        self.edmxVersion = edmxVersion
        self.dataServiceVersion = dataServiceVersion
        self.schemas = schemas
    }
}

public struct CSDLSchema: Sendable, Equatable {
    public var namespace: String
    public var alias: String?
    public var entityTypes: [CSDLEntityType] = []
    public var associations: [CSDLAssociation] = []
    public var entityContainers: [CSDLEntityContainer] = []

    public init(namespace: String, alias: String? = nil) {
        self.namespace = namespace
        self.alias = alias
    }
}

public struct CSDLEntityType: Sendable, Equatable {
    public var name: String
    public var baseType: String?
    public var isAbstract: Bool = false
    public var key: [String] = []
    public var properties: [CSDLProperty] = []
    public var navigationProperties: [CSDLNavigationProperty] = []
    public var annotations: [CSDLAnnotation] = []

    public init(name: String) { self.name = name }
}

public struct CSDLProperty: Sendable, Equatable {
    public var name: String
    public var type: String
    public var nullable: Bool = true
    public var maxLength: String?
    public var fixedLength: Bool?
    public var unicode: Bool?
    public var precision: Int?
    public var scale: Int?
    public var defaultValue: String?
    public var concurrencyMode: String?
    public var annotations: [CSDLAnnotation] = []

    public init(name: String, type: String) {
        self.name = name
        self.type = type
    }
}

public struct CSDLNavigationProperty: Sendable, Equatable {
    public var name: String
    public var relationship: String
    public var fromRole: String
    public var toRole: String

    public init(name: String, relationship: String, fromRole: String, toRole: String) {
        self.name = name
        self.relationship = relationship
        self.fromRole = fromRole
        self.toRole = toRole
    }
}

public struct CSDLAssociation: Sendable, Equatable {
    public var name: String
    public var ends: [CSDLAssociationEnd] = []
    public var referentialConstraint: CSDLReferentialConstraint?

    public init(name: String) { self.name = name }
}

public struct CSDLAssociationEnd: Sendable, Equatable {
    public var role: String
    public var type: String
    /// "1", "0..1" or "*".
    public var multiplicity: String
    /// The `OnDelete Action` of this end ("Cascade" or "None"), when declared.
    public var onDelete: String?
    public var annotations: [CSDLAnnotation] = []

    public init(role: String, type: String, multiplicity: String) {
        self.role = role
        self.type = type
        self.multiplicity = multiplicity
    }
}

public struct CSDLReferentialConstraint: Sendable, Equatable {
    public var principalRole: String
    public var principalProperties: [String]
    public var dependentRole: String
    public var dependentProperties: [String]

    public init(principalRole: String, principalProperties: [String], dependentRole: String, dependentProperties: [String]) {
        self.principalRole = principalRole
        self.principalProperties = principalProperties
        self.dependentRole = dependentRole
        self.dependentProperties = dependentProperties
    }
}

public struct CSDLEntityContainer: Sendable, Equatable {
    public var name: String
    public var isDefault: Bool = false
    public var entitySets: [CSDLEntitySet] = []
    public var associationSets: [CSDLAssociationSet] = []
    public var functionImports: [CSDLFunctionImport] = []

    public init(name: String) { self.name = name }
}

public struct CSDLEntitySet: Sendable, Equatable {
    public var name: String
    public var entityType: String
    public var annotations: [CSDLAnnotation] = []

    public init(name: String, entityType: String) {
        self.name = name
        self.entityType = entityType
    }
}

public struct CSDLAssociationSet: Sendable, Equatable {
    public struct End: Sendable, Equatable {
        public var role: String
        public var entitySet: String

        public init(role: String, entitySet: String) {
            self.role = role
            self.entitySet = entitySet
        }
    }

    public var name: String
    public var association: String
    public var ends: [End] = []

    public init(name: String, association: String) {
        self.name = name
        self.association = association
    }
}
