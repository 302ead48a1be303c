/// The Content-IDs of a change set's operations and the locations of the entities they
/// created, so that a later operation of the same change set can address them as `$id`
/// (MS-ODATA 2.2.7.6.2): `POST $1/PersonCarMaintenance` after `Content-ID: 1` created a car.
public struct ContentIDReferences: Sendable {
    private var locations: [String: String] = [:]

    /// The OData system resources that also start with "$"; a URI naming one of them is not a
    /// Content-ID reference.
    private static let systemSegments: Set<String> = ["$metadata", "$batch", "$count", "$links", "$value"]

    public init() {}

    /// Remembers where the operation with that Content-ID put its entity (its Location header).
    public mutating func record(contentID: String, location: String) {
        locations[contentID] = location
    }

    public func location(for contentID: String) -> String? { locations[contentID] }

    /// The URI with a leading `$id` replaced by that operation's location: `$1/Nav?x=y`
    /// becomes `http://host/service.svc/Set(7)/Nav?x=y`. URIs that do not start with "$", and
    /// system resources like `$metadata`, come back unchanged. A `$id` that names no earlier
    /// operation is an error, since passing it on would only earn a puzzling 404.
    public func resolve(_ uri: String) throws(BatchError) -> String {
        guard uri.hasPrefix("$") else { return uri }
        let tokenEnd = uri.firstIndex { $0 == "/" || $0 == "?" } ?? uri.endIndex
        let token = uri[..<tokenEnd]
        if ContentIDReferences.systemSegments.contains(String(token)) { return uri }
        let id = String(token.dropFirst())
        guard let location = locations[id] else {
            throw BatchError("'\(uri)' refers to Content-ID '\(id)', which no earlier operation of this change set created.")
        }
        var rest = uri[tokenEnd...]
        if location.hasSuffix("/") && rest.hasPrefix("/") { rest = rest.dropFirst() }
        return location + rest
    }
}
