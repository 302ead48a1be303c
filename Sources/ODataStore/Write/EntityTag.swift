// Unsafe pointers here, and why: the digest reads a lent column's bytes in place, a word at a
// time (`StoredColumn`, see LentColumns.swift), and the digits are written straight into the
// serializer's or the HTTP header's buffer, without a String per entity.
import EDM

/// The ETag of an entity (MS-ODATA 2.2.5.4): a weak validator `W/"<16 hex digits>"` that
/// changes whenever the entity changes.
///
/// It is a 64-bit digest (`ColumnDigest`) of the entity's concurrency tokens (the properties
/// the schema marks ConcurrencyMode="Fixed") or, when the schema marks none, of every stored column,
/// hidden foreign keys included: a version derived from the row itself, so it needs no extra
/// column, holds for rows written by any program, and is the same after a restart.
public enum EntityTag {
    public static func of(_ entity: some EntityColumns) -> String {
        weakTag(entity.tagDigest)
    }

    /// `W/"<16 hex digits>"` for an entity whose `tagDigest` is `digest`, written in one
    /// allocation. (An entity read's ETag header is spelled from the digest as it is sent, by
    /// HTTPCore's `EntityTagValue.weak`, without a String: the two spellings must agree byte
    /// for byte, which HTTPResponseTests checks.)
    public static func weakTag(_ digest: UInt64) -> String {
        String(unsafeUninitializedCapacity: weakTagLength) { buffer in
            writeWeakTag(of: digest, to: UnsafeMutableRawPointer(buffer.baseAddress!))
            return weakTagLength
        }
    }

    /// The bytes of a weak tag: `W/"` + 16 digits + `"`. Computed and inlinable: a stored
    /// global read from another module goes through its accessor.
    @inlinable public static var weakTagLength: Int { 20 }

    /// Writes the `weakTagLength` bytes of `W/"<digits>"` for `digest` at `out`: the one framing
    /// of the digits, for `weakTag` and for a header value written where it is sent.
    @inlinable
    public static func writeWeakTag(of digest: UInt64, to out: UnsafeMutableRawPointer) {
        let quote = UInt8(ascii: "\"")
        out.storeBytes(of: UInt8(ascii: "W"), as: UInt8.self)
        out.storeBytes(of: UInt8(ascii: "/"), toByteOffset: 1, as: UInt8.self)
        out.storeBytes(of: quote, toByteOffset: 2, as: UInt8.self)
        writeDigits(of: digest, to: out + 3)
        out.storeBytes(of: quote, toByteOffset: 19, as: UInt8.self)
    }

    /// Writes the 16 lower-case hexadecimal digits of `digest`, the tag's opaque part, at `out`:
    /// the one way both the ETag header and `__metadata` (the JSON writer) spell it.
    @inlinable
    public static func writeDigits(of digest: UInt64, to out: UnsafeMutableRawPointer) {
        out.storeBytes(of: hexadecimalDigits(UInt32(truncatingIfNeeded: digest >> 32)), as: UInt64.self)
        out.storeBytes(of: hexadecimalDigits(UInt32(truncatingIfNeeded: digest)), toByteOffset: 8, as: UInt64.self)
    }

    /// The eight hexadecimal digits of `value` as the bytes of a word, in the order they are
    /// stored: each nibble spread into a byte of its own, then all made digits at once, with
    /// no table load and no branch per digit (an entity's ETag is written for every entity).
    @inlinable @inline(__always)
    static func hexadecimalDigits(_ value: UInt32) -> UInt64 {
        var nibbles = UInt64(value)
        nibbles = (nibbles | nibbles << 16) & 0x0000_FFFF_0000_FFFF
        nibbles = (nibbles | nibbles << 8) & 0x00FF_00FF_00FF_00FF
        nibbles = (nibbles | nibbles << 4) & 0x0F0F_0F0F_0F0F_0F0F
        // Byte k holds nibble k, the least significant first. A nibble of 10 or more carries
        // into bit 4 when 6 is added; those take the step from "9" + 1 to "a" (0x27).
        let letters = ((nibbles &+ 0x0606_0606_0606_0606) >> 4) & 0x0101_0101_0101_0101
        let digits = nibbles &+ 0x3030_3030_3030_3030 &+ letters &* 0x27
        // The most significant digit must come first in memory.
        return digits.bigEndian
    }

    /// The 64 bits behind the tag (`EntityColumns.tagDigest`): `W/"` + these as 16 lower-case
    /// hex digits + `"`. Serializers write them straight into a response without a String.
    static func digest<Entity: EntityColumns>(of entity: Entity) -> UInt64 {
        var digest = ColumnDigest()
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

/// A 64-bit digest over a self-delimiting encoding of column values (a type word, then the
/// value; text and blobs with their length first), so that different rows give different
/// word streams. It takes 8 bytes a round: FNV-1a, one serial multiply a byte, spent 63 rounds
/// on the blog's Bob Samson and 4.5% of the CPU of `Person?$top=20`; this takes 11. Each round is a
/// bijection of the state, so two rows that differ in one word never collide, and MurmurHash3's
/// finalizer spreads every input bit over the 64 of the tag.
private struct ColumnDigest {
    private var state: UInt64 = 0xcbf2_9ce4_8422_2325

    @inline(__always)
    mutating func add(_ word: UInt64) {
        state = (state ^ word) &* 0x9e37_79b9_7f4a_7c15
        state ^= state >> 32
    }

    /// The length first, then whole words; the bytes after the last whole word come from
    /// loads that overlap it (or, below 8 bytes, each other), as wyhash reads them. With the
    /// length known, the words still name every byte, and short text costs a round or two.
    @inline(__always)
    mutating func add(_ bytes: UnsafeRawBufferPointer, tag: UInt64) {
        let count = bytes.count
        add(UInt64(count) &<< 8 | tag)
        if count >= 8 {
            var offset = 0
            while offset + 8 <= count {
                add(word64(bytes, offset))
                offset += 8
            }
            if offset < count { add(word64(bytes, count - 8)) }
        } else if count >= 4 {
            add(word32(bytes, 0) &<< 32 | word32(bytes, count - 4))
        } else if count > 0 {
            add(UInt64(bytes[0]) &<< 16 | UInt64(bytes[count >> 1]) &<< 8 | UInt64(bytes[count - 1]))
        }
    }

    @inline(__always)
    private func word64(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
    }

    @inline(__always)
    private func word32(_ bytes: UnsafeRawBufferPointer, _ offset: Int) -> UInt64 {
        UInt64(UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
    }

    mutating func add(_ column: StoredColumn) {
        switch column {
        case .null:
            add(0)
        case .integer(let i):
            add(1)
            add(UInt64(bitPattern: i))
        case .real(let d):
            add(2)
            add(d.bitPattern)
        case .text(let utf8):
            add(UnsafeRawBufferPointer(utf8), tag: 3)
        case .blob(let bytes):
            add(bytes, tag: 4)
        }
    }

    var value: UInt64 {
        var mixed = state
        mixed ^= mixed >> 33
        mixed = mixed &* 0xff51_afd7_ed55_8ccd
        mixed ^= mixed >> 33
        mixed = mixed &* 0xc4ce_b9fe_1a85_ec53
        mixed ^= mixed >> 33
        return mixed
    }
}
