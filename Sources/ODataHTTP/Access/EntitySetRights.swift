import Foundation

/// What a role may do with one entity set, named as WCF Data Services' `EntitySetRights`, so
/// that a rule reads the same as the `SetEntitySetAccessRule` it replaces.
public struct EntitySetRights: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    public static let readSingle = EntitySetRights(rawValue: 1 << 0)
    public static let readMultiple = EntitySetRights(rawValue: 1 << 1)
    public static let writeAppend = EntitySetRights(rawValue: 1 << 2)
    public static let writeReplace = EntitySetRights(rawValue: 1 << 3)
    public static let writeDelete = EntitySetRights(rawValue: 1 << 4)
    public static let writeMerge = EntitySetRights(rawValue: 1 << 5)
    public static let none: EntitySetRights = []
    public static let allRead: EntitySetRights = [.readSingle, .readMultiple]
    public static let allWrite: EntitySetRights = [.writeAppend, .writeReplace, .writeDelete, .writeMerge]
    public static let all: EntitySetRights = [.allRead, .allWrite]

    /// The names an access file uses, WCF's.
    static let names: [(String, EntitySetRights)] = [
        ("None", .none), ("ReadSingle", .readSingle), ("ReadMultiple", .readMultiple), ("WriteAppend", .writeAppend),
        ("WriteReplace", .writeReplace), ("WriteDelete", .writeDelete), ("WriteMerge", .writeMerge),
        ("AllRead", .allRead), ("AllWrite", .allWrite), ("All", .all),
    ]

    /// One name, or several joined by `,` or `|` (`"ReadSingle, WriteMerge"`); nil for a name
    /// WCF does not have.
    init?(names text: String) {
        var rights = EntitySetRights.none
        for part in text.split(whereSeparator: { $0 == "," || $0 == "|" }) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let match = Self.names.first(where: { $0.0.caseInsensitiveCompare(name) == .orderedSame }) else { return nil }
            rights.formUnion(match.1)
        }
        self = rights
    }

    /// The names of its rights, the combined ones where they apply.
    var names: String {
        if self == .none { return "None" }
        if self == .all { return "All" }
        var parts: [String] = []
        var rest = self
        for (name, rights) in [("AllRead", EntitySetRights.allRead), ("AllWrite", .allWrite)] + Self.names.dropFirst().prefix(6)
        where !rights.isEmpty && rest.isSuperset(of: rights) {
            parts.append(name)
            rest.subtract(rights)
        }
        return parts.joined(separator: ", ")
    }
}
