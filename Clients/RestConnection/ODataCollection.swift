import Foundation

/// One page of a collection, with what the server said about the rest.
public struct ODataCollection<Element> {
    /// How the server wrote the collection.
    public enum Shape: Sendable, Equatable {
        /// DataServiceVersion 1.0: `{"d": [...]}`.
        case bareArray
        /// DataServiceVersion 2.0: `{"d": {"results": [...], "__count": "N", "__next": "..."}}`.
        case resultsObject
    }

    public var elements: [Element]
    /// The `__count` of `$inlinecount=allpages`: all matching entities, not just this page.
    public var totalCount: Int?
    /// The `__next` link to the following page, when the server cut the collection short.
    public var nextLink: URL?
    public var shape: Shape

    public init(elements: [Element], totalCount: Int? = nil, nextLink: URL? = nil, shape: Shape) {
        self.elements = elements
        self.totalCount = totalCount
        self.nextLink = nextLink
        self.shape = shape
    }
}

extension ODataCollection: Sendable where Element: Sendable {}
extension ODataCollection: Equatable where Element: Equatable {}
