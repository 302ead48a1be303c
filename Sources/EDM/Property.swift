/// A structural property of an entity type, with its facets and its storage column.
public struct Property: Sendable, Equatable {
    public let name: String
    public let type: PrimitiveType
    public let isNullable: Bool
    /// nil for unbounded ("Max" or absent).
    public let maxLength: Int?
    public let isFixedLength: Bool?
    public let isUnicode: Bool?
    public let precision: Int?
    public let scale: Int?
    public let defaultValue: String?
    /// True when ConcurrencyMode="Fixed": the property takes part in the entity's ETag.
    public let isConcurrencyToken: Bool
    /// True when the database assigns the value on insert (StoreGeneratedPattern="Identity").
    public let isStoreGenerated: Bool
    public let isKey: Bool
    /// True when the schema asks for an index on the column (store:Indexed), for properties
    /// that queries filter or sort by.
    public let isIndexed: Bool
    /// The properties whose columns follow this one in its index (`store:Indexed="firstName"`
    /// on lastName: the entities of one last name then come out ordered by first name, and a
    /// query asking for that order needs no sort). Empty for a one-column index.
    public let indexedWith: [String]
    public let columnName: String
    /// Position among the entity type's stored columns.
    public let columnIndex: Int

    public init(name: String, type: PrimitiveType, isNullable: Bool = true, maxLength: Int? = nil,
                isFixedLength: Bool? = nil, isUnicode: Bool? = nil, precision: Int? = nil, scale: Int? = nil,
                defaultValue: String? = nil, isConcurrencyToken: Bool = false, isStoreGenerated: Bool = false,
                isKey: Bool = false, isIndexed: Bool = false, indexedWith: [String] = [], columnName: String, columnIndex: Int) {
        self.name = name
        self.type = type
        self.isNullable = isNullable
        self.maxLength = maxLength
        self.isFixedLength = isFixedLength
        self.isUnicode = isUnicode
        self.precision = precision
        self.scale = scale
        self.defaultValue = defaultValue
        self.isConcurrencyToken = isConcurrencyToken
        self.isStoreGenerated = isStoreGenerated
        self.isKey = isKey
        self.isIndexed = isIndexed
        self.indexedWith = indexedWith
        self.columnName = columnName
        self.columnIndex = columnIndex
    }
}
