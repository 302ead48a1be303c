import Foundation

extension RestConnection {
    /// GETs a resource and unwraps `d`: a single object or a collection (either version's shape).
    public func get(_ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> ODataPayload {
        let response = try await send(.get(path, query: query))
        return try ODataPayload(data: response.data, from: response.url)
    }

    /// GETs a single entity (or other object) and decodes it.
    public func get<Value: Decodable>(_ type: Value.Type, _ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> Value {
        let response = try await send(.get(path, query: query))
        return try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
    }

    /// GETs one page of a collection and decodes its elements.
    public func getCollection<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> ODataCollection<Element> {
        let response = try await send(.get(path, query: query))
        return try ODataJSON.decodeCollection(Element.self, from: response.data, url: response.url)
    }

    /// GETs a collection and every following page, by its `__next` links.
    public func getAll<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> [Element] {
        var page = try await getCollection(Element.self, path, query: query)
        var elements = page.elements
        var seen: Set<URL> = []
        while let next = page.nextLink {
            guard seen.insert(next).inserted else {
                throw .unexpectedPayload(url: next, reason: "the __next links go round in a circle")
            }
            page = try await getCollection(Element.self, next.absoluteString)
            elements += page.elements
        }
        return elements
    }

    /// GETs a collection and every following page, untyped.
    public func getAll(_ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> [JSONObject] {
        try await getAll(JSONObject.self, path, query: query)
    }

    /// GETs a `$count` resource (`Person/$count`), which is plain text.
    public func count(_ path: String, query: [URLQueryItem] = []) async throws(RestConnectionError) -> Int {
        let response = try await send(RestRequest(path: path, query: query, headers: ["Accept": "text/plain, */*"]))
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else {
            throw .unexpectedPayload(url: response.url, reason: "expected a count, got \(ODataPayload.preview(response.data))")
        }
        return count
    }
}
