import EDM

/// The system query options of a request (MS-ODATA 2.2.3.6.1), parsed and resolved.
public struct QueryOptions: Sendable {
    public enum Format: Sendable, Equatable {
        case json
        case atom
        case xml
    }

    public enum InlineCount: Sendable, Equatable {
        case none
        case allPages
    }

    public var expand: [ExpandNode] = []
    public var select: SelectNode?
    public var filter: BoundExpression?
    public var orderBy: [OrderByItem] = []
    public var top: Int?
    public var skip: Int?
    /// The values after which a server-driven page starts: order-by values, then the key.
    public var skipToken: [EDMValue]?
    public var inlineCount: InlineCount = .none
    public var format: Format?

    public init() {}

    /// True when the request uses a feature that needs a DataServiceVersion 2.0 response.
    public var requiresVersion2: Bool {
        select != nil || inlineCount == .allPages
    }
}
