import Foundation

/// The system query options of a read, typed: `$filter`, `$orderby`, `$select`, `$expand`,
/// `$top`, `$skip` and `$inlinecount`.
///
///     var query = ODataQuery(filter: .property("lastName") == "Hernández", top: 10)
///     query.orderBy = [.ascending("lastName"), .descending("createDate")]
///     let page = try await connection.getCollection(Person.self, "Person", query: query.items)
///
/// Values are kept as OData writes them; `RestConnection` percent-encodes each once, so quotes,
/// `&`, `+`, `#`, `%`, `/` and any Unicode arrive as written.
public struct ODataQuery: Sendable, Hashable {
    /// One `$orderby` key.
    public struct Order: Sendable, Hashable {
        public var property: String
        public var descending: Bool

        public static func ascending(_ property: String) -> Order { Order(property: property, descending: false) }
        public static func descending(_ property: String) -> Order { Order(property: property, descending: true) }
    }

    public var filter: ODataFilter?
    public var orderBy: [Order]
    public var select: [String]
    public var expand: [String]
    public var top: Int?
    public var skip: Int?
    /// `$inlinecount=allpages`: the collection's `totalCount` counts every match, not the page.
    public var inlineCount: Bool

    public init(filter: ODataFilter? = nil, orderBy: [Order] = [], select: [String] = [], expand: [String] = [],
                top: Int? = nil, skip: Int? = nil, inlineCount: Bool = false) {
        self.filter = filter
        self.orderBy = orderBy
        self.select = select
        self.expand = expand
        self.top = top
        self.skip = skip
        self.inlineCount = inlineCount
    }

    /// The options as query items, in a fixed order, values not yet percent-encoded.
    public var items: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let filter { items.append(URLQueryItem(name: "$filter", value: filter.text)) }
        if !orderBy.isEmpty {
            let keys = orderBy.map { $0.descending ? "\($0.property) desc" : $0.property }
            items.append(URLQueryItem(name: "$orderby", value: keys.joined(separator: ",")))
        }
        if !select.isEmpty { items.append(URLQueryItem(name: "$select", value: select.joined(separator: ","))) }
        if !expand.isEmpty { items.append(URLQueryItem(name: "$expand", value: expand.joined(separator: ","))) }
        if let top { items.append(URLQueryItem(name: "$top", value: String(top))) }
        if let skip { items.append(URLQueryItem(name: "$skip", value: String(skip))) }
        if inlineCount { items.append(URLQueryItem(name: "$inlinecount", value: "allpages")) }
        return items
    }
}
