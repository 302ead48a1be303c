/// A URI that names an entity in a request body: `__metadata.uri` of a binding, or the `uri` of
/// a `$links` body. Only split here, relative to the service root; the URI parser resolves the
/// segments against the model, so key syntax has exactly one implementation.
public struct EntityReference: Sendable, Equatable {
    /// The URI as the client sent it.
    public let uri: String
    /// For `$1` or `$1/Nav` inside a batch change set: the Content-ID ("1") of the earlier
    /// operation whose entity the reference starts from.
    public let contentID: String?
    /// The path segments after the service root (or after `$id`), still percent-encoded, with
    /// any query or fragment dropped. Empty only for a bare `$id` reference.
    public let segments: [String]

    /// Splits `uri` relative to `serviceRoot`, which is either an absolute URI
    /// (`http://host:8080/CarDealer.svc/`) or just its path (`/CarDealer.svc/`).
    ///
    /// Accepted forms: absolute (`http://any-host/CarDealer.svc/Set(1)`; the host is not
    /// compared, since clients behind proxies name the service differently), absolute path
    /// (`/CarDealer.svc/Set(1)`), relative to the root (`Set(1)`), and `$id[/...]`.
    public init(uri: String, serviceRoot: String) throws(PayloadError) {
        self.uri = uri
        var text = Substring(uri)
        if let cut = text.firstIndex(where: { $0 == "?" || $0 == "#" }) { text = text[..<cut] }
        guard !text.isEmpty else { throw PayloadError("The URI '\(uri)' does not name an entity.") }

        if text.hasPrefix("$") {
            let idEnd = text.firstIndex(of: "/") ?? text.endIndex
            let id = text[text.index(after: text.startIndex)..<idEnd]
            guard !id.isEmpty else { throw PayloadError("The URI '\(uri)' starts with '$' but names no Content-ID.") }
            contentID = String(id)
            segments = EntityReference.split(text[idEnd...])
            return
        }
        contentID = nil

        var path = text
        if let schemeEnd = path.range(of: "://") {
            let scheme = path[..<schemeEnd.lowerBound]
            guard !scheme.isEmpty, scheme.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else {
                throw PayloadError("The URI '\(uri)' has an invalid scheme.")
            }
            let afterAuthority = path[schemeEnd.upperBound...]
            path = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? ""
        }
        if path.hasPrefix("/") {
            let rootPath = EntityReference.path(ofServiceRoot: serviceRoot)
            guard path.lowercased().hasPrefix(rootPath.lowercased()) || path.lowercased() + "/" == rootPath.lowercased() else {
                throw PayloadError("The URI '\(uri)' is not under the service root \(serviceRoot).")
            }
            path = path.dropFirst(min(rootPath.count, path.count))
        }
        segments = EntityReference.split(path)
        guard !segments.isEmpty else { throw PayloadError("The URI '\(uri)' does not name an entity.") }
    }

    /// The segments joined again: the resource path relative to the service root (or to `$id`).
    public var resourcePath: String { segments.joined(separator: "/") }

    /// The entity set (or other resource) name of the first segment, `Set` of `Set(1)`;
    /// nil for a `$id` reference.
    public var entitySetName: String? {
        guard contentID == nil, let first = segments.first else { return nil }
        return String(first.prefix { $0 != "(" })
    }

    /// The raw key predicate of the first segment, `1` of `Set(1)` or `a=1,b='x'` of
    /// `Set(a=1,b='x')`; nil when the first segment has no parentheses.
    public var keyText: String? {
        guard contentID == nil, let first = segments.first, let open = first.firstIndex(of: "("), first.hasSuffix(")") else { return nil }
        return String(first[first.index(after: open)..<first.index(before: first.endIndex)])
    }

    /// The path part of a service root, always ending with "/".
    static func path(ofServiceRoot root: String) -> String {
        var path = Substring(root)
        if let schemeEnd = path.range(of: "://") {
            let afterAuthority = path[schemeEnd.upperBound...]
            path = afterAuthority.firstIndex(of: "/").map { afterAuthority[$0...] } ?? "/"
        }
        var text = String(path)
        if !text.hasPrefix("/") { text = "/" + text }
        if !text.hasSuffix("/") { text += "/" }
        return text
    }

    private static func split(_ path: Substring) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}
