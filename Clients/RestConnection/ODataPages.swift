import Foundation

/// A collection read page by page as an `AsyncSequence` of its elements: the next page (by the
/// server's `__next` link) is fetched only when the elements before are used up.
public struct ODataPages<Element: Decodable>: AsyncSequence {
    let connection: RestConnection
    let path: String
    let query: [URLQueryItem]

    public func makeAsyncIterator() -> Iterator {
        Iterator(connection: connection, next: .first(path, query))
    }

    public struct Iterator: AsyncIteratorProtocol {
        enum Position {
            case first(String, [URLQueryItem])
            case link(URL)
            case end
        }

        let connection: RestConnection
        var next: Position
        var buffered: [Element] = []
        var seen: Set<URL> = []

        init(connection: RestConnection, next: Position) {
            self.connection = connection
            self.next = next
        }

        public mutating func next() async throws -> Element? {
            while buffered.isEmpty {
                guard let page = try await nextPage() else { return nil }
                buffered = page.reversed()
            }
            return buffered.removeLast()
        }

        /// The next whole page, or nil after the last.
        mutating func nextPage() async throws -> [Element]? {
            let page: ODataCollection<Element>
            switch next {
            case .end:
                return nil
            case .first(let path, let query):
                page = try await connection.getCollection(Element.self, path, query: query)
            case .link(let url):
                page = try await connection.getCollection(Element.self, url.absoluteString)
            }
            if let link = page.nextLink {
                guard seen.insert(link).inserted else {
                    throw RestConnectionError.unexpectedPayload(url: link, reason: "the __next links go round in a circle")
                }
                next = .link(link)
            } else {
                next = .end
            }
            return page.elements
        }
    }
}

extension ODataPages: Sendable where Element: Sendable {}
