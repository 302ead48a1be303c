import EDM

/// The ETag of an entity (MS-ODATA 2.2.5.4): a weak validator `W/"<16 hex digits>"` that
/// changes whenever the entity changes.
///
/// It is a 64-bit FNV-1a digest of the entity's concurrency tokens (the properties the schema
/// marks ConcurrencyMode="Fixed") or, when the schema marks none, of every stored column,
/// hidden foreign keys included: a version derived from the row itself, so it needs no extra
/// column, holds for rows written by any program, and is the same after a restart.
public enum EntityTag {
    public static func of(_ entity: some EntityColumns) -> String {
        FNV1a(value: entity.tagDigest).weakTag
    }

    /// The 64 bits behind the tag (`EntityColumns.tagDigest`): `W/"` + these as 16 lower-case
    /// hex digits + `"`. Serializers write them straight into a response without a String.
    static func digest<Entity: EntityColumns>(of entity: Entity) -> UInt64 {
        var digest = FNV1a()
        let tokens = entity.type.concurrencyProperties
        if tokens.isEmpty {
            for index in 0..<entity.type.columnCount { entity.withColumn(index) { digest.add($0) } }
        } else {
            for property in tokens { entity.withColumn(property.columnIndex) { digest.add($0) } }
        }
        return digest.value
    }

    /// Whether an If-Match or If-None-Match header value (`*`, or a comma-separated list of
    /// entity tags) names `tag`. Tags are compared by their opaque part, so `"x"` matches
    /// `W/"x"`: clients echo the tag they were given, some without the weak prefix.
    public static func header(_ header: String, matches tag: String) -> Bool {
        let wanted = opaque(tag)
        for item in list(header) {
            if item == "*" || opaque(item) == wanted { return true }
        }
        return false
    }

    /// The items of an entity-tag list, split at commas outside quotes.
    static func list(_ header: String) -> [Substring] {
        var items: [Substring] = []
        var start = header.startIndex
        var index = header.startIndex
        var quoted = false
        while index < header.endIndex {
            let c = header[index]
            if c == "\"" { quoted.toggle() } else if c == "," && !quoted {
                items.append(trim(header[start..<index]))
                start = header.index(after: index)
            }
            index = header.index(after: index)
        }
        items.append(trim(header[start...]))
        return items.filter { !$0.isEmpty }
    }

    private static func opaque<S: StringProtocol>(_ tag: S) -> Substring {
        var text = Substring(tag)
        if text.hasPrefix("W/") || text.hasPrefix("w/") { text = text.dropFirst(2) }
        return text
    }

    private static func trim(_ text: Substring) -> Substring {
        var text = text
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}

/// 64-bit FNV-1a over a self-delimiting encoding of column values (a type byte, then the value,
/// text and blobs with their length), so that different rows give different byte streams.
private struct FNV1a {
    var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ byte: UInt8) {
        value ^= UInt64(byte)
        value = value &* 0x0000_0100_0000_01B3
    }

    mutating func add(_ bytes: UnsafeBufferPointer<UInt8>) {
        add(UInt64(bytes.count))
        var hash = value
        for byte in bytes {
            hash ^= UInt64(byte)
            hash = hash &* 0x0000_0100_0000_01B3
        }
        value = hash
    }

    mutating func add(_ number: UInt64) {
        var rest = number
        for _ in 0..<8 {
            add(UInt8(truncatingIfNeeded: rest))
            rest >>= 8
        }
    }

    mutating func add(_ column: StoredColumn) {
        switch column {
        case .null:
            add(UInt8(0))
        case .integer(let i):
            add(UInt8(1))
            add(UInt64(bitPattern: i))
        case .real(let d):
            add(UInt8(2))
            add(d.bitPattern)
        case .text(let utf8):
            add(UInt8(3))
            add(utf8)
        case .blob(let bytes):
            add(UInt8(4))
            add(bytes.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// `W/"<16 hex digits>"`, written in one allocation: it runs for every entity served.
    var weakTag: String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: 20) { buffer in
            buffer[0] = UInt8(ascii: "W")
            buffer[1] = UInt8(ascii: "/")
            buffer[2] = UInt8(ascii: "\"")
            digits.withUTF8Buffer { hex in
                for index in 0..<16 {
                    buffer[3 + index] = hex[Int((value >> UInt64(60 - 4 * index)) & 0xF)]
                }
            }
            buffer[19] = UInt8(ascii: "\"")
            return 20
        }
    }
}
