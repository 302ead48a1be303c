/// The storage-mapping vocabulary a schema may use on top of CSDL. See Schema/CarDealer.edmx.
public enum StorageAnnotations {
    public static let namespace = "urn:cardealer:storage"
    /// On an EntityType: the table name, when it differs from the type name.
    public static let table = "Table"
    /// On a Property: the column name, when it differs from the property name.
    public static let column = "Column"
    /// On the dependent End of an Association: its foreign-key column(s), comma-separated, in
    /// the order of the principal's key.
    public static let foreignKey = "ForeignKey"
    /// On a Property: "true" to index its column, or the names of other properties of its type,
    /// comma-separated, to index its column followed by theirs.
    public static let indexed = "Indexed"
    /// On an EntitySet: the server page size for that set.
    public static let pageSize = "PageSize"

    // On a FunctionImport (a service operation), what it answers; see `FunctionImport`.

    /// `$filter` text over the queried set, `@name` standing for the parameter `name`: the
    /// entities it selects are the result, or what the aggregate computes over.
    public static let filter = "Filter"
    /// `$orderby` text: the order of the result when the request gives no `$orderby`.
    public static let orderBy = "OrderBy"
    /// For a primitive ReturnType: `count`, or `sum(property)`, `min(...)`, `max(...)`, `avg(...)`.
    public static let aggregate = "Aggregate"
    /// For a primitive ReturnType: the entity set the aggregate is computed over.
    public static let from = "From"
}
