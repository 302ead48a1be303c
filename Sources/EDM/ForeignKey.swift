/// How an association is stored: columns on the dependent type's table that hold the
/// principal's key. The columns are either hidden (store:ForeignKey) or properties named by a
/// ReferentialConstraint.
public struct ForeignKey: Sendable {
    public let associationName: String
    /// Columns on the dependent table, in the order of the principal's key properties.
    public let columns: [String]
    /// Positions of those columns among the dependent type's stored columns.
    public let columnIndexes: [Int]
    /// True when the principal end is "0..1": the columns may be null.
    public let isOptional: Bool
    /// True when deleting the principal deletes its dependents (OnDelete Action="Cascade").
    public let cascadesOnDelete: Bool
}

/// A stored column that is not a property: the hidden column of a foreign key.
public struct HiddenColumn: Sendable {
    public let name: String
    public let type: PrimitiveType
    public let columnIndex: Int
}
