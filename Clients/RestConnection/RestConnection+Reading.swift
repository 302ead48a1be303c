import Foundation

extension RestConnection {
    /// GETs a resource and unwraps `d`: a single object or a collection (either version's shape).
    public func get(_ path: String, query: [URLQueryItem] = []) async throws -> ODataPayload {
        let response = try await send(.get(path, query: query))
        return try ODataPayload(data: response.data, from: response.url)
    }

    /// GETs a single entity (or other object) and decodes it.
    ///
    /// When this connection has read the same URL before and the server gave an ETag, the GET
    /// is conditional (`If-None-Match`); a 304 Not Modified is answered from the body read then.
    public func get<Value: Decodable>(_ type: Value.Type, _ path: String, query: [URLQueryItem] = []) async throws -> Value {
        let response = try await conditionalGet(path, query: query)
        return try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
    }

    /// GETs one page of a collection and decodes its elements.
    public func getCollection<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) async throws -> ODataCollection<Element> {
        let response = try await send(.get(path, query: query))
        return try ODataJSON.decodeCollection(Element.self, from: response.data, url: response.url)
    }

    /// GETs a collection and every following page, by its `__next` links.
    public func getAll<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) async throws -> [Element] {
        var elements: [Element] = []
        var pages = ODataPages<Element>(connection: self, path: path, query: query).makeAsyncIterator()
        while let page = try await pages.nextPage() {
            elements += page
        }
        return elements
    }

    /// GETs a collection and every following page, untyped.
    public func getAll(_ path: String, query: [URLQueryItem] = []) async throws -> [JSONObject] {
        try await getAll(JSONObject.self, path, query: query)
    }

    /// The entities of a collection one at a time, fetching each page (by `__next`) only when
    /// the one before is used up:
    ///
    ///     for try await person in connection.all(Person.self) { ... }
    public func all<Entity: ODataEntity>(_ type: Entity.Type, query: ODataQuery = ODataQuery()) -> ODataPages<Entity> {
        ODataPages(connection: self, path: Entity.entitySetName, query: query.items)
    }

    /// The elements of any collection path one at a time, page by page.
    public func all<Element: Decodable>(_ type: Element.Type, _ path: String, query: [URLQueryItem] = []) -> ODataPages<Element> {
        ODataPages(connection: self, path: path, query: query)
    }

    /// GETs a `$count` resource (`Person/$count`), which is plain text.
    public func count(_ path: String, query: [URLQueryItem] = []) async throws -> Int {
        let response = try await send(RestRequest(path: path, query: query, headers: ["Accept": "text/plain, */*"]))
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int(text) else {
            throw RestConnectionError.unexpectedPayload(url: response.url, reason: "expected a count, got \(ODataPayload.preview(response.data))")
        }
        return count
    }

    /// A GET that asks `If-None-Match` with the ETag of the body last read from the same URL.
    func conditionalGet(_ path: String, query: [URLQueryItem]) async throws -> RestResponse {
        let url = try self.url(for: path, query: query)
        var request = RestRequest.get(path, query: query)
        let cached = lastBodies.withLock { $0.lookup(url) }
        if let cached { request.headers["If-None-Match"] = cached.etag }
        do {
            let response = try await send(request)
            if response.statusCode == 304, let cached { return cached.response }
            lastBodies.withLock { $0.store(response, for: url) }
            return response
        } catch let error as RestConnectionError where error.statusCode == 404 {
            lastBodies.withLock { $0.remove(url) }
            throw error
        }
    }
}
