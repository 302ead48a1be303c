import EDM
import ODataStore
import ODataURI

/// Pages a person can read in a browser (the service root, a set, an entity, an error), from
/// what the JSON and Atom writers take: rows read in place, `$select`, the paging links and the URIs below
/// the service root. Plain HTML with one small inline stylesheet and no script, every value
/// escaped, and links wherever the data has them (an entity's URI, its navigation properties,
/// the next and previous page, `$metadata`), so that a person can drill from a person to
/// their cars to their maintenance as the `dealer` CLI does.
public struct HTMLSerializer {
    public let uris: EntityURIs
    /// The page title's suffix and the header's name: the entity container's.
    public let serviceName: String

    public init(uris: EntityURIs, serviceName: String) {
        self.uris = uris
        self.serviceName = serviceName
    }

    /// How a set's page pages: links to the next and previous pages, and the position of its
    /// first entity (from `$skip`) for the caption.
    public struct Paging {
        public var next: String?
        public var previous: String?
        public var firstPosition: Int
        public var count: Int?

        public init(next: String?, previous: String?, firstPosition: Int, count: Int?) {
            self.next = next
            self.previous = previous
            self.firstPosition = firstPosition
            self.count = count
        }
    }

    /// The filter box of a set's page: the URI it submits to, the filter shown in it, the other
    /// query options it keeps (hidden), and an error to show beside it.
    public struct FilterBox {
        public var action: String
        public var filter: String
        public var kept: [(name: String, value: String)]
        public var error: String?

        public init(action: String, filter: String, kept: [(name: String, value: String)] = [], error: String? = nil) {
            self.action = action
            self.filter = filter
            self.kept = kept
            self.error = error
        }
    }

    // MARK: - Pages

    /// The service root: its entity sets.
    public func serviceDocument(_ model: EntityModel) -> [UInt8] {
        var body = "<h1>\(escape(serviceName))</h1>\n<p>Entity sets:</p>\n<ul class=\"sets\">\n"
        for set in model.entitySets {
            body += "<li><a href=\"\(escape(uris.serviceRoot + set.name))\">\(escape(set.name))</a></li>\n"
        }
        body += "</ul>\n"
        return page(title: "Entity sets", trail: [], body: body)
    }

    /// A page of entities as a table: a row per entity, its URI first, then its properties and
    /// its navigation properties as links; the filter box above, the paging links below. Its
    /// entities are appended as the caller reads them, each from its row in place, as the JSON
    /// and Atom writers take them (`HTMLCollectionPage`).
    public func collectionPage(path: String, type: EntityType, select: SelectNode?) -> HTMLCollectionPage {
        HTMLCollectionPage(serializer: self, path: path, type: type, select: select)
    }

    /// One entity, from its row in place: its properties, and links to its navigation properties.
    public func entityPage(_ row: EntityRow, path: String, select: SelectNode?) -> [UInt8] {
        let type = row.type
        let uri = uris.uri(of: row)
        var body = "<h1>\(escape(path))</h1>\n<p class=\"caption\">\(escape(type.qualifiedName)) · <a href=\"\(escape(uri))\">\(escape(uri))</a></p>\n"
        body += "<table class=\"entity\">\n"
        for property in type.properties where select?.includes(property: property.name) ?? true {
            body += "<tr><th>\(escape(property.name))</th><td>\(valueHTML(row.value(of: property), property))</td></tr>\n"
        }
        body += "</table>\n"
        let navigations = type.navigationProperties.filter { select?.includes(navigation: $0.name) ?? true }
        if !navigations.isEmpty {
            body += "<h2>Related</h2>\n<ul class=\"related\">\n"
            for navigation in navigations {
                let what = navigation.isCollection ? "the \(navigation.target.name) entities" : "its \(navigation.target.name)"
                body += "<li><a href=\"\(escape(uri + "/" + navigation.name))\">\(escape(navigation.name))</a> <span class=\"null\">\(escape(what))</span></li>\n"
            }
            body += "</ul>\n"
        }
        return page(title: path, trail: trail(path), body: body)
    }

    /// An error, said as the OData error says it, with the filter box (and its error beside it)
    /// when the request was a set's page with a `$filter`.
    public func errorPage(status: Int, code: String, message: String, path: String?, filter: FilterBox?) -> [UInt8] {
        var body = "<h1>\(escape(path ?? "Error"))</h1>\n"
        if let filter {
            body += filterForm(filter)
        } else {
            body += "<p class=\"error\" role=\"alert\"><strong>\(status) \(escape(code))</strong>: \(escape(message))</p>\n"
        }
        return page(title: "\(status) \(code)", trail: path.map(trail) ?? [], body: body)
    }

    // MARK: - Parts

    fileprivate func filterForm(_ box: FilterBox) -> String {
        var form = "<form class=\"filter\" method=\"get\" action=\"\(escape(box.action))\">"
        form += "<label for=\"filter\">$filter</label> "
        form += "<input id=\"filter\" name=\"$filter\" size=\"60\" placeholder=\"lastName eq 'Samson'\" value=\"\(escape(box.filter))\"> "
        for kept in box.kept { form += "<input type=\"hidden\" name=\"\(escape(kept.name))\" value=\"\(escape(kept.value))\">" }
        form += "<button type=\"submit\">Filter</button></form>\n"
        if let error = box.error { form += "<p class=\"error\" role=\"alert\">\(escape(error))</p>\n" }
        return form
    }

    /// The links of a path's leading segments: `Person(1)/PersonCar` gives `Person(1)`.
    fileprivate func trail(_ path: String) -> [(String, String)] {
        let segments = path.split(separator: "/")
        var links: [(String, String)] = []
        var prefix = ""
        for segment in segments.dropLast() {
            prefix += (prefix.isEmpty ? "" : "/") + segment
            links.append((String(segment), uris.serviceRoot + prefix))
        }
        return links
    }

    fileprivate func valueHTML(_ value: EDMValue, _ property: Property) -> String {
        switch value {
        case .null: return "<span class=\"null\">null</span>"
        case .binary(let bytes): return "<span class=\"null\">\(bytes.count) bytes</span>"
        default: return escape(RawValueFormatter.text(value, type: property.type))
        }
    }

    fileprivate func page(title: String, trail: [(String, String)], body: String) -> [UInt8] {
        var html = "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        html += "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        html += "<title>\(escape(title)) · \(escape(serviceName))</title>\n<style>\(Self.stylesheet)</style>\n</head>\n<body>\n"
        html += "<header><a href=\"\(escape(uris.serviceRoot))\">\(escape(serviceName))</a>"
        for (name, link) in trail { html += " / <a href=\"\(escape(link))\">\(escape(name))</a>" }
        html += "<span class=\"meta\"><a href=\"\(escape(uris.serviceRoot))$metadata\">$metadata</a></span></header>\n<main>\n"
        html += body
        html += "</main>\n<footer>OData V2 · the same data as JSON (<code>Accept: application/json</code>) or Atom</footer>\n</body>\n</html>\n"
        return Array(html.utf8)
    }

    private static let stylesheet = """
        body{font:15px/1.45 system-ui,sans-serif;margin:0;color:#1d2125;background:#fafafa}\
        header{background:#24394f;color:#fff;padding:.6em 1em}header a{color:#fff}\
        .meta{float:right}main{padding:0 1em 1em}h1{font-size:1.4em;margin:.7em 0 .4em}h2{font-size:1.1em}\
        table{border-collapse:collapse;background:#fff}th,td{border:1px solid #d4d8dc;padding:.25em .5em;text-align:left;vertical-align:top}\
        thead th{background:#eef1f4;position:sticky;top:0}.entity th{background:#eef1f4}.scroll{overflow-x:auto}\
        .null,.caption{color:#6b737b}.error{color:#a11;background:#fdecec;border:1px solid #e5b4b4;padding:.4em .6em}\
        form.filter{margin:.5em 0}input{font:inherit}.paging{margin:.6em 0}.paging a{margin-right:1em}\
        footer{color:#6b737b;font-size:.85em;padding:1em}a{color:#0b5cad}
        """

    /// Text as HTML content or a quoted attribute value.
    public static func escape(_ text: String) -> String {
        var out = ""
        out.reserveCapacity(text.utf8.count)
        for character in text.unicodeScalars {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            default: out.unicodeScalars.append(character)
            }
        }
        return out
    }

    fileprivate func escape(_ text: String) -> String { Self.escape(text) }
}

/// A set's page written entity by entity as the caller reads them, each from its row in place;
/// the caption, which counts them, and the paging links, known only after the last one, are
/// put in place by `finish`.
public struct HTMLCollectionPage {
    private let serializer: HTMLSerializer
    private let path: String
    private let properties: [Property]
    private let navigations: [NavigationProperty]
    private var rows = ""
    /// The entities appended so far.
    public private(set) var count = 0

    fileprivate init(serializer: HTMLSerializer, path: String, type: EntityType, select: SelectNode?) {
        self.serializer = serializer
        self.path = path
        properties = type.properties.filter { select?.includes(property: $0.name) ?? true }
        navigations = type.navigationProperties.filter { select?.includes(navigation: $0.name) ?? true }
    }

    /// Writes one entity of the page as a table row.
    public mutating func append(_ row: EntityRow) {
        let relative = serializer.uris.relativeURI(of: row)
        let uri = serializer.uris.serviceRoot + relative
        rows += "<tr><td><a href=\"\(serializer.escape(uri))\">\(serializer.escape(relative))</a></td>"
        for property in properties { rows += "<td>\(serializer.valueHTML(row.value(of: property), property))</td>" }
        for navigation in navigations {
            rows += "<td><a href=\"\(serializer.escape(uri + "/" + navigation.name))\">\(serializer.escape(navigation.name))</a></td>"
        }
        rows += "</tr>\n"
        count += 1
    }

    /// The page, with the filter box above the table and the paging links below.
    public func finish(filter: HTMLSerializer.FilterBox, paging: HTMLSerializer.Paging) -> [UInt8] {
        let escape = HTMLSerializer.escape
        var body = "<h1>\(escape(path))</h1>\n" + serializer.filterForm(filter)
        let shown = count == 0 ? "No entities" : "Entities \(paging.firstPosition + 1) to \(paging.firstPosition + count)"
        body += "<p class=\"caption\">\(shown)\(paging.count.map { " of \($0)" } ?? "")</p>\n"
        body += "<div class=\"scroll\"><table>\n<thead><tr><th>entity</th>"
        for property in properties { body += "<th>\(escape(property.name))</th>" }
        for navigation in navigations { body += "<th>\(escape(navigation.name))</th>" }
        body += "</tr></thead>\n<tbody>\n" + rows
        body += "</tbody>\n</table></div>\n<nav class=\"paging\">"
        if let previous = paging.previous { body += "<a rel=\"prev\" href=\"\(escape(previous))\">&larr; previous</a> " }
        if let next = paging.next { body += "<a rel=\"next\" href=\"\(escape(next))\">next &rarr;</a>" }
        body += "</nav>\n"
        return serializer.page(title: path, trail: serializer.trail(path), body: body)
    }
}
