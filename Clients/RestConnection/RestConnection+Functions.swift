import Foundation

// Service operations (function imports, MS-ODATA 2.2.3.5.1): called by name at the service root,
// parameters in the query string as typed literals.
extension RestConnection {
    /// Calls an operation that returns a collection of entities (or complex values), reading
    /// every page by its `__next` links. `query` adds `$filter`, `$orderby`, `$top` and the like.
    ///
    ///     let due = try await connection.callFunction("CarsDueForService", parameters: ["miles": Int32(60000)],
    ///                                                 returningCollectionOf: PersonCarMaintenance.self)
    public func callFunction<Element: Decodable>(
        _ name: String, parameters: ODataFunctionParameters = [:], method: HTTPMethod = .get,
        query: ODataQuery = ODataQuery(), returningCollectionOf type: Element.Type
    ) async throws -> [Element] {
        let items = parameters.items + query.items
        if method == .get {
            return try await getAll(Element.self, name, query: items)
        }
        let response = try await send(RestRequest(method: method, path: name, query: items))
        var page = try ODataJSON.decodeCollection(Element.self, from: response.data, url: response.url)
        var elements = page.elements
        var seen: Set<URL> = []
        // Following pages are read by GET, as the server's links are meant to be.
        while let next = page.nextLink, seen.insert(next).inserted {
            page = try await getCollection(Element.self, next.absoluteString)
            elements += page.elements
        }
        return elements
    }

    /// Calls an operation that returns one entity (or complex value).
    public func callFunction<Value: Decodable>(
        _ name: String, parameters: ODataFunctionParameters = [:], method: HTTPMethod = .get,
        returning type: Value.Type
    ) async throws -> Value {
        let response = try await send(RestRequest(method: method, path: name, query: parameters.items))
        return try ODataJSON.decodeEntity(Value.self, from: response.data, url: response.url)
    }

    /// Calls an operation that returns one primitive value, answered `{"d": {"Name": value}}`
    /// in V2 (or `{"d": value}` by some V1 servers), in OData's JSON form of its type.
    ///
    ///     let cost = try await connection.callFunction("TotalMaintenanceCost", parameters: ["personID": Int32(7)],
    ///                                                  returningPrimitive: Decimal.self)
    public func callFunction<Value: ODataPrimitive>(
        _ name: String, parameters: ODataFunctionParameters = [:], method: HTTPMethod = .get,
        returningPrimitive type: Value.Type
    ) async throws -> Value {
        let response = try await send(RestRequest(method: method, path: name, query: parameters.items))
        return try ODataJSON.decodeEntity(ODataPrimitiveResult<Value>.self, from: response.data, url: response.url).value
    }

    /// Calls an operation that returns nothing worth decoding.
    @discardableResult
    public func callFunction(_ name: String, parameters: ODataFunctionParameters = [:], method: HTTPMethod = .get) async throws -> RestResponse {
        try await send(RestRequest(method: method, path: name, query: parameters.items))
    }

    /// Calls an operation that returns a collection of primitive values.
    public func callFunction<Value: ODataPrimitive>(
        _ name: String, parameters: ODataFunctionParameters = [:], method: HTTPMethod = .get,
        returningPrimitiveCollectionOf type: Value.Type
    ) async throws -> [Value] {
        let response = try await send(RestRequest(method: method, path: name, query: parameters.items))
        return try ODataJSON.decodeCollection(ODataPrimitiveBox<Value>.self, from: response.data, url: response.url).elements.map(\.value)
    }
}

/// A primitive result: the one property of the `d` object, or `d` itself.
struct ODataPrimitiveResult<Value: ODataPrimitive>: Decodable {
    var value: Value

    private struct AnyKey: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    init(from decoder: any Decoder) throws {
        if let container = try? decoder.container(keyedBy: AnyKey.self) {
            let keys = container.allKeys.filter { !$0.stringValue.hasPrefix("__") }
            guard keys.count == 1, let key = keys.first else {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath, debugDescription: "expected one value, found \(keys.count) properties"))
            }
            value = try container.decodeOData(Value.self, forKey: key)
        } else {
            value = try Value(odataFrom: decoder)
        }
    }
}
