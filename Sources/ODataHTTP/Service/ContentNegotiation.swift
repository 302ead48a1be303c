import ODataURI

/// Which representation a request gets, from `$format` first and the Accept header second.
/// The gateway serves verbose JSON for data (the answer to `*/*` and to no Accept at all), Atom
/// for data when the client asks for it and not for JSON, XML for `$metadata` and the service
/// document, plain text for `$count` and `$value`, and HTML pages to a browser: a client that
/// prefers `text/html` to every OData type it names (`prefersHTML`).
enum ContentNegotiation {
    enum Representation: Equatable {
        case json
        case xml
        case atom
        /// A page for a person (`HTMLSerializer`); never for `$format`, `*/*` or an OData type.
        case html
    }

    /// The media ranges of an Accept header with a non-zero quality, lower-cased.
    /// Parsed without Foundation: it runs on every request.
    static func acceptedRanges(_ accept: String?) -> [String] {
        guard let accept else { return ["*/*"] }
        var ranges: [String] = []
        for item in accept.splitASCII(",") where !item.isEmpty {
            let parts = item.splitASCII(";")
            guard let first = parts.first else { continue }
            let range = trimmed(first).lowercased()
            guard !range.isEmpty else { continue }
            let refused = parts.dropFirst().contains { parameter in
                let p = trimmed(parameter).filter { $0 != " " }
                guard p.hasPrefix("q=") || p.hasPrefix("Q=") else { return false }
                return Double(p.dropFirst(2)) == 0
            }
            if !refused { ranges.append(range) }
        }
        return ranges.isEmpty && trimmed(Substring(accept)).isEmpty ? ["*/*"] : ranges
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var start = text.startIndex
        var end = text.endIndex
        while start < end, text[start] == " " || text[start] == "\t" { start = text.index(after: start) }
        while end > start, text[text.index(before: end)] == " " || text[text.index(before: end)] == "\t" { end = text.index(before: end) }
        return text[start..<end]
    }

    static func accepts(_ ranges: [String], _ mediaType: String) -> Bool {
        let major = mediaType.split(separator: "/").first.map(String.init) ?? ""
        return ranges.contains { $0 == "*/*" || $0 == mediaType || $0 == major + "/*" }
    }

    /// Data (entities, properties, links): verbose JSON unless the client names Atom or XML and
    /// not JSON; JSON for `*/*`, which is what clients that name nothing usually mean today.
    static func forData(format: QueryOptions.Format?, accept: String?) throws(ServiceError) -> Representation {
        switch format {
        case .json?: return .json
        case .atom?, .xml?: return .atom
        case nil: break
        }
        // What almost every client sends, decided without parsing.
        if accept == nil || accept == "application/json" || accept == "*/*" { return .json }
        if prefersHTML(accept) { return .html }
        let ranges = acceptedRanges(accept)
        if ranges.contains("application/json") { return .json }
        if namesXML(ranges) { return .atom }
        if accepts(ranges, "application/json") { return .json }
        throw .notAcceptable("none of the media types in Accept (\(accept ?? "")) is supported; this service answers data in application/json or application/atom+xml")
    }

    /// The types an OData client names; a browser names some of them too, at a lower quality.
    private static let odataTypes: Set<String> = [
        "application/json", "application/atom+xml", "application/xml", "text/xml", "application/atomsvc+xml",
    ]

    /// Whether the client is a browser: it names `text/html` with a quality above that of every
    /// OData type it names (`text/html,…,application/xml;q=0.9,*/*;q=0.8`). `*/*` is no
    /// preference, so OData clients (JSON, Atom, XML or `*/*`) never get HTML.
    static func prefersHTML(_ accept: String?) -> Bool {
        guard let accept, accept.utf8.count >= 9, accept.lowercased().contains("text/html") else { return false }
        var html = 0.0, odata = 0.0
        for item in accept.splitASCII(",") {
            let parts = item.splitASCII(";")
            guard let first = parts.first else { continue }
            let range = trimmed(first).lowercased()
            var quality = 1.0
            for parameter in parts.dropFirst() {
                let p = trimmed(parameter).filter { $0 != " " }.lowercased()
                if p.hasPrefix("q="), let q = Double(p.dropFirst(2)) { quality = q }
            }
            if range == "text/html" { html = max(html, quality) }
            if odataTypes.contains(range) { odata = max(odata, quality) }
        }
        return html > 0 && html > odata
    }

    /// Whether the client names an XML type of data: Atom, or XML (`text/xml` as
    /// `application/xml`, as RFC 7303 makes them the same).
    static func namesXML(_ ranges: [String]) -> Bool {
        ranges.contains("application/atom+xml") || ranges.contains("application/xml") || ranges.contains("text/xml")
    }

    /// Errors follow data: `$format` first, then HTML for a browser, XML for a client that
    /// names an XML type and not JSON, JSON for any other, even one that accepts neither (an
    /// error must be said somehow).
    static func forError(accept: String?, format: String? = nil) -> Representation {
        switch format?.lowercased() {
        case "json"?: return .json
        case "atom"?, "xml"?: return .xml
        default: break
        }
        if accept == nil || accept == "application/json" || accept == "*/*" { return .json }
        if prefersHTML(accept) { return .html }
        let ranges = acceptedRanges(accept)
        return !ranges.contains("application/json") && namesXML(ranges) ? .xml : .json
    }

    /// The service document: XML (AtomPub) by default, JSON when asked for.
    static func forServiceDocument(format: QueryOptions.Format?, accept: String?) throws(ServiceError) -> Representation {
        switch format {
        case .json?: return .json
        case .xml?, .atom?: return .xml
        case nil: break
        }
        if prefersHTML(accept) { return .html }
        let ranges = acceptedRanges(accept)
        if ranges.contains("application/json") { return .json }
        if accepts(ranges, "application/atomsvc+xml") || accepts(ranges, "application/xml") || ranges.contains("text/xml") { return .xml }
        if accepts(ranges, "application/json") { return .json }
        throw .notAcceptable("the service document is available as application/atomsvc+xml, application/xml or application/json")
    }

    // $metadata, $count and $value have one representation each (XML, text) and are served in
    // it whatever Accept says: clients that send `Accept: application/json` for every request
    // (as the blog's RestConnection does) still get them.
}
