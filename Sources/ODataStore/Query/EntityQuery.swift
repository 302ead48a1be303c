import EDM
import ODataURI

/// What to read: the entities a resource path addresses, narrowed and ordered by the query
/// options, and cut to one page.
public struct EntityQuery {
    public var path: ResourcePath
    public var filter: BoundExpression?
    public var orderBy: [OrderByItem] = []
    public var top: Int?
    public var skip: Int?
    /// Start after this position: order-by values, then key values (keyset paging).
    public var skipToken: [EDMValue]?
    /// The server page size; nil reads every matching row.
    public var pageSize: Int?
    /// Single-valued navigation properties read in the same statement, for `forEachRow`
    /// (see `JoinedExpansions`; the caller checks `JoinedExpansions.canJoin`).
    public var joinedExpand: [ExpandNode] = []

    public init(path: ResourcePath) { self.path = path }

    public init(path: ResourcePath, options: QueryOptions, pageSize: Int?, joinedExpand: [ExpandNode] = []) {
        self.path = path
        filter = options.filter
        orderBy = options.orderBy
        top = options.top
        skip = options.skip
        skipToken = options.skipToken
        self.pageSize = pageSize
        self.joinedExpand = joinedExpand
    }
}

/// One page of entities, and where the next one starts when the server cut the result.
public struct EntityPage {
    public var entities: EntityCursor
    /// The skip token of the next page, or nil when this page is the last.
    public var nextSkipToken: [EDMValue]?

    public init(entities: EntityCursor, nextSkipToken: [EDMValue]?) {
        self.entities = entities
        self.nextSkipToken = nextSkipToken
    }
}
