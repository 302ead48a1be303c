import EDM
import ODataStore
import ODataURI

/// Absolute URIs of entities and their links, below one service root.
/// A class: a request hands it from the service's cache to its context and to each serializer,
/// and a struct of a String and an array cost two retains and releases at each of them.
public final class EntityURIs: Sendable {
    /// The service root with a trailing slash, e.g. `http://host/CarDealer.svc/`.
    public let serviceRoot: String
    /// `serviceRoot` as JSON string content, escaped once for every entity URI written below it.
    let serviceRootJSON: [UInt8]

    public init(serviceRoot: String) {
        let root = serviceRoot.hasSuffix("/") ? serviceRoot : serviceRoot + "/"
        var escaped = JSONWriter(capacity: root.utf8.count + 8)
        escaped.appendEscaped(root)
        self.serviceRoot = root
        serviceRootJSON = escaped.bytes
    }

    /// `Set(key)` relative to the root, of a row or of a record (a write's).
    public func relativeURI(of row: some EntityColumns) -> String {
        let type = row.type
        let keys = type.keyProperties
        // The common case, an Int32 (or smaller) key, without building literals.
        if keys.count == 1, keys[0].type.isIntegral, keys[0].type != .int64, let set = type.entitySet {
            var integerKey: Int64?
            row.withColumn(keys[0].columnIndex) { column in if case .integer(let value) = column { integerKey = value } }
            if let integerKey { return set.name + "(" + String(integerKey) + ")" }
        }
        return relativeURI(type: type, key: row.keyValues)
    }

    public func relativeURI(type: EntityType, key: [EDMValue]) -> String {
        (type.entitySet?.name ?? type.name) + "(" + URIEscaping.escapeKey(LiteralFormatter.keyPredicate(key, of: type)) + ")"
    }

    public func uri(of row: some EntityColumns) -> String { serviceRoot + relativeURI(of: row) }
}

/// Percent-encoding of key predicates inside a URI path: what would end the segment or the
/// path (`/`, `?`, `#`, `%`) and what is not a URI character (spaces, non-ASCII) is escaped.
enum URIEscaping {
    static func escapeKey(_ text: String) -> String {
        var needs = false
        for byte in text.utf8 where !isAllowed(byte) {
            needs = true
            break
        }
        guard needs else { return text }
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            if isAllowed(byte) {
                out.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    private static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        case UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: "("),
             UInt8(ascii: ")"), UInt8(ascii: "="), UInt8(ascii: ","), UInt8(ascii: ":"), UInt8(ascii: "@"), UInt8(ascii: "!"),
             UInt8(ascii: "*"), UInt8(ascii: "$"), UInt8(ascii: ";"):
            return true
        default:
            return false
        }
    }
}
