import HTTPCore
import ODataStore
import ODataURI

/// The ETag of a GET's answer, one per representation, and how request tags are compared.
///
/// An entity has one tag per version, `W/"<16 hex digits>"` (`EntityTag`): it is the entity's
/// `__metadata.etag` and Atom `m:etag` in every representation, and what If-Match on a write
/// names (optimistic concurrency, MS-ODATA 2.2.5.4). The ETag *header* of a GET validates the
/// bytes of that answer (RFC 9110 8.8.3), so each representation of the version gets its own
/// weak tag, the entity's digits followed by the representation:
///
/// - verbose JSON of the whole entity: the entity's tag itself, `W/"0123456789abcdef"`, which
///   JSON clients have always echoed in If-Match;
/// - every other form: `W/"0123456789abcdef-atom"`, `-xml` (a property in XML), `-html`, and
///   with `$select` a digest of the selection, `-json.1a2b3c4d`;
/// - with `$expand`, none: one entity's tag cannot vouch for the entities expanded into the
///   answer (WCF Data Services sends none either); their tags are in the body.
///
/// If-None-Match on a GET compares whole tags (RFC 9110's weak comparison), so a tag cached
/// with one representation never gets a 304 for another. If-Match, on a write or a GET,
/// compares only the entity's digits: any representation's tag of the current version is that
/// version. (RFC 9110 asks If-Match for a strong comparison, which a weak tag never passes;
/// OData V2 services and clients use their weak tags with If-Match, and so does this one.)
enum RepresentationTag {
    enum Form: String {
        case json, atom, xml, html
    }

    /// The ETag header of a GET that answers one entity (or one of its properties).
    static func header(digest: UInt64, form: Form, options: QueryOptions) -> EntityTagValue? {
        guard options.expand.isEmpty else { return nil }
        if form == .json && options.select == nil { return .weak(digest) }
        var suffix = form.rawValue
        if let select = options.select { suffix += "." + selectionDigest(select) }
        var text = EntityTagValue.weak(digest).text
        text.removeLast()
        return .text(text + "-" + suffix + "\"")
    }

    /// Whether If-Match (`*`, or a list of tags) names the version whose entity tag is
    /// `entityTag`, in any representation.
    static func ifMatch(_ header: String, namesVersionOf entityTag: String) -> Bool {
        let wanted = versionPart(Substring(entityTag))
        return items(header).contains { $0 == "*" || versionPart($0) == wanted }
    }

    /// Whether If-None-Match names exactly the representation tagged `tag`.
    static func ifNoneMatch(_ header: String, names tag: String) -> Bool {
        EntityTag.header(header, matches: tag)
    }

    /// The tags of a list, split at commas outside quotes and trimmed.
    private static func items(_ header: String) -> [Substring] {
        var items: [Substring] = []
        var start = header.startIndex, quoted = false
        for index in header.indices {
            if header[index] == "\"" { quoted.toggle() }
            if header[index] == ",", !quoted {
                items.append(header[start..<index])
                start = header.index(after: index)
            }
        }
        items.append(header[start...])
        return items.map { $0.drop { $0 == " " || $0 == "\t" } }.map { item in
            var item = item
            while item.last == " " || item.last == "\t" { item = item.dropLast() }
            return item
        }.filter { !$0.isEmpty }
    }

    /// The entity's digits of a tag: the opaque part without `W/`, quotes and representation.
    private static func versionPart(_ tag: Substring) -> Substring {
        var text = tag
        if text.hasPrefix("W/") || text.hasPrefix("w/") { text = text.dropFirst(2) }
        if text.first == "\"" { text = text.dropFirst() }
        if text.last == "\"" { text = text.dropLast() }
        return text.prefix { $0 != "-" }
    }

    /// Eight hex digits of a digest (FNV-1a) of what `$select` keeps: stable across restarts,
    /// unlike Swift's seeded hashing, so that a tag outlives the process.
    private static func selectionDigest(_ select: SelectNode) -> String {
        var text = select.allProperties ? "*" : ""
        text += "|" + select.properties.sorted().joined(separator: ",")
        text += "|" + select.navigations.keys.sorted().joined(separator: ",")
        var hash: UInt32 = 0x811c_9dc5
        for byte in text.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        let digits = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - digits.count) + digits
    }
}
