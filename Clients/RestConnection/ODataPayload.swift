import Foundation

/// A verbose-JSON response with its `d` wrapper taken off. As the blog put it, the client has to
/// know whether it gets a single object (a dictionary) or many (an array); this says which.
public enum ODataPayload: Sendable, Equatable {
    case object(JSONObject)
    case collection(ODataCollection<JSONObject>)

    /// Unwraps `d` from a response body. `url` is the request's, for the error message.
    public init(data: Data, from url: URL) throws(RestConnectionError) {
        let root: JSONValue
        do {
            root = try JSONDecoder().decode(JSONValue.self, from: data)
        } catch {
            throw .unexpectedPayload(url: url, reason: "the response is not JSON: \(ODataPayload.preview(data))")
        }
        guard let d = root["d"] else {
            throw .unexpectedPayload(url: url, reason: "the JSON has no \"d\" wrapper")
        }
        switch d {
        case .array(let items):
            self = .collection(ODataCollection(elements: try ODataPayload.objects(items, url: url), shape: .bareArray))
        case .object(let object):
            if case .array(let items)? = object["results"], object["__metadata"] == nil {
                let count: Int?
                switch object["__count"] {
                case nil, .null?:
                    count = nil
                case let value?:
                    guard let number = value.intValue else {
                        throw .unexpectedPayload(url: url, reason: "__count is \(value), not a number")
                    }
                    count = Int(number)
                }
                let next = object["__next"]?.stringValue.flatMap { URL(string: $0, relativeTo: url)?.absoluteURL }
                self = .collection(ODataCollection(elements: try ODataPayload.objects(items, url: url),
                                                   totalCount: count, nextLink: next, shape: .resultsObject))
            } else {
                self = .object(object)
            }
        default:
            throw .unexpectedPayload(url: url, reason: "\"d\" is \(d), neither an object nor an array")
        }
    }

    /// The single object (the blog's `dictionaryData`), or nil for a collection.
    public var object: JSONObject? {
        if case .object(let object) = self { return object }
        return nil
    }

    /// The collection's page (the blog's `arrayData`), or nil for a single object.
    public var collection: ODataCollection<JSONObject>? {
        if case .collection(let collection) = self { return collection }
        return nil
    }

    /// The objects of a collection, or nil for a single object.
    public var array: [JSONObject]? { collection?.elements }

    private static func objects(_ items: [JSONValue], url: URL) throws(RestConnectionError) -> [JSONObject] {
        var objects: [JSONObject] = []
        objects.reserveCapacity(items.count)
        for item in items {
            guard case .object(let object) = item else {
                throw .unexpectedPayload(url: url, reason: "the collection holds \(item), not an object")
            }
            objects.append(object)
        }
        return objects
    }

    /// The start of a body, for an error message.
    static func preview(_ data: Data) -> String {
        let text = String(decoding: data.prefix(80), as: UTF8.self)
            .replacingOccurrences(of: "\n", with: " ")
        if data.isEmpty { return "(empty body)" }
        return "\"\(text)\(data.count > 80 ? "..." : "")\""
    }
}
