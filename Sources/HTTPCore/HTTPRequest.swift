#if canImport(Glibc)
import Glibc
#endif

/// A request as the server received it: nothing decoded or interpreted yet.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The request target's bytes exactly as received: path and query, still percent-encoded.
    /// Bytes rather than a String: the server copies them into storage it keeps for its
    /// connection, where making a String of each new target (an allocation, a UTF-8 check and
    /// a free) cost about 600 instructions more of a `Person(n)` (callgrind); a handler can find
    /// a target it has parsed before by these bytes.
    public let targetBytes: [UInt8]
    /// Header fields in the order received, names lower-cased. A list, not a dictionary: a
    /// request carries a handful of fields, and hashing each name cost more than the search.
    public let headerFields: [(name: String, value: String)]
    public var body: [UInt8]
    /// The client's address (`192.0.2.1:5000`), when the server records it for an access log.
    public var clientAddress: String?
    /// Set when the server did not read the request as it would any other: a body too large,
    /// or without room, or a head it refuses. The handler answers with it, and reads nothing
    /// else of the request.
    public var transportCondition: TransportCondition?

    /// A request made by the application itself (a `$batch` operation, a test), its fields
    /// indexed by `index`.
    public init(method: String, target: String, headerFields: [(name: String, value: String)], body: [UInt8] = [],
                index: HeaderIndex = .none) {
        self.init(method: method, targetBytes: Array(target.utf8), headerFields: headerFields,
                  knownFields: index.positions(in: headerFields), body: body)
    }

    /// With `knownFields` already found (`HeaderIndex.positions(in: headerFields)`): the server
    /// keeps them with a connection's fields, which a keep-alive client sends unchanged.
    init(method: String, targetBytes: [UInt8], headerFields: [(name: String, value: String)], knownFields: SIMD16<UInt8>, body: [UInt8]) {
        self.method = method
        self.targetBytes = targetBytes
        self.headerFields = headerFields
        self.body = body
        pathLength = targetBytes.firstIndex(of: UInt8(ascii: "?")) ?? targetBytes.count
        self.knownFields = knownFields
    }

    public init(method: String, target: String, headers: [String: String] = [:], body: [UInt8] = [], index: HeaderIndex = .none) {
        self.init(method: method, target: target,
                  headerFields: headers.map { (ASCIICase.lowercased($0.key), $0.value) }, body: body, index: index)
    }

    /// The first value of the field `name` (any case).
    public func header(_ name: String) -> String? {
        // By index: `first(where:)` copied each (name, value) tuple through the generic tuple
        // witnesses, a retain and release per string, on every lookup of every request.
        for index in headerFields.indices where ASCIICase.equalIgnoringCase(headerFields[index].name, name) {
            return headerFields[index].value
        }
        return nil
    }

    /// The first value of the field at `slot` of the request's `HeaderIndex`, whose name is
    /// `name` (lower-cased): found when the request was made, or searched for by name when the
    /// request's index does not hold it.
    @inlinable
    public func header(slot: Int, name: String) -> String? {
        let position = knownFields[slot]
        guard position < HeaderIndex.unindexed else {
            // Positions are bytes: past the 254th field only the search by name finds one.
            return position == HeaderIndex.unindexed || headerFields.count > Int(HeaderIndex.unindexed) ? header(name) : nil
        }
        return headerFields[Int(position)].value
    }

    /// The first value of Content-Length, which every index holds.
    var contentLength: String? { header(slot: HeaderIndex.contentLengthSlot, name: "content-length") }

    /// The request target as text (bytes that are not UTF-8 repaired), made on each call: for
    /// what is done once, such as a first parse, a next link or a log line.
    public var target: String { String(decoding: targetBytes, as: UTF8.self) }

    /// The path part of the target (before `?`).
    public var path: Substring { pathAndQuery.path }

    /// The query part of the target (after `?`), empty when there is none.
    public var query: Substring { pathAndQuery.query }

    /// `target` cut at its first `?` (searched in the text: repairing bytes that are not UTF-8
    /// may have moved it from where `pathLength` counts it). Each call makes `target` anew, so
    /// a caller that needs both parts takes them from one call.
    public var pathAndQuery: (path: Substring, query: Substring) {
        let target = target
        guard let mark = target.utf8.firstIndex(of: UInt8(ascii: "?")) else { return (Substring(target), "") }
        return (target[..<mark], target[target.index(after: mark)...])
    }

    /// Whether the path is `root` itself or below it (`root/...`). Compared as bytes, in place:
    /// the path as a `Substring` and a character-wise comparison cost a few hundred
    /// instructions of every request.
    public func pathIsBelow(_ root: String) -> Bool {
        let rootLength = root.utf8.count
        guard pathLength >= rootLength else { return false }
        let path = targetBytes.span
        let wanted = root.utf8.span
        for index in 0..<rootLength where path[index] != wanted[index] { return false }
        return pathLength == rootLength || path[rootLength] == UInt8(ascii: "/")
    }

    /// The length of the path in bytes: up to the first `?`, or the whole target.
    private let pathLength: Int
    /// Where in `headerFields` each field of the request's `HeaderIndex` is first, by slot. A
    /// vector of bytes rather than an array: copying a request copies it without reference counting.
    @usableFromInline let knownFields: SIMD16<UInt8>
}

/// The header fields an application reads for most requests, found once when a request is made
/// rather than by name at each lookup: a handler asks for several of them per request, and
/// comparing names case-insensitively for each was about 1,800 instructions of a `Person(n)`
/// (callgrind). The server finds them again only when a connection's fields change.
///
/// Each name has the slot of its place in the list (`HTTPRequest.header(slot:name:)`);
/// Content-Length, which the server reads for each request, has the last.
public struct HeaderIndex: Sendable {
    /// The names, lower-cased as `HTTPRequest.headerFields` keeps names.
    public let names: [String]

    /// At most `capacity` names, any case.
    public init(_ names: [String]) {
        precondition(names.count <= Self.capacity, "at most \(Self.capacity) header fields can be indexed")
        self.names = names.map(ASCIICase.lowercased)
    }

    /// Nothing but Content-Length indexed: every other lookup searches by name.
    public static let none = HeaderIndex([])

    /// The slots for names, one fewer than positions hold.
    public static let capacity = 15

    // Computed and inlinable, these three: a stored static read from another module goes
    // through its accessor, on every lookup of a field.
    @inlinable static var contentLengthSlot: Int { 15 }

    /// A position meaning "not sent".
    @inlinable static var absent: UInt8 { .max }
    /// A position meaning "not indexed": the field is searched for by name.
    @inlinable static var unindexed: UInt8 { .max - 1 }

    /// Where in `fields` each indexed name is first, by slot. Positions are bytes: past the
    /// 254th field a name is searched for.
    func positions(in fields: [(name: String, value: String)]) -> SIMD16<UInt8> {
        var positions = SIMD16<UInt8>(repeating: Self.unindexed)
        for slot in names.indices { positions[slot] = Self.absent }
        positions[Self.contentLengthSlot] = Self.absent
        let seen = names.count
        for index in fields.indices.prefix(Int(Self.unindexed)) {
            let name = fields[index].name
            // By length first, so that most names are told apart without comparing text.
            let length = name.utf8.count
            if length == 14, positions[Self.contentLengthSlot] == Self.absent, name == "content-length" {
                positions[Self.contentLengthSlot] = UInt8(index)
                continue
            }
            for slot in 0..<seen where positions[slot] == Self.absent && names[slot].utf8.count == length && names[slot] == name {
                positions[slot] = UInt8(index)
                break
            }
        }
        return positions
    }
}
