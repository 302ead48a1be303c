import CSDL
import EDM
import Foundation
import ODataStore
import ODataURI

/// A role resolved against the schema: its rights per set, what it cannot see, its rate.
struct ResolvedRole: Sendable, Equatable {
    let rules: RoleRules
    /// Sets with no rights: they and their types do not exist for the role.
    let hiddenSets: Set<String>
    /// By entity type name.
    let hiddenProperties: [String: Set<String>]
    let rateLimit: Double?
    /// `admin`: the full model, no rule.
    let isAdmin: Bool

    var name: String { rules.roleName }
}

/// A key as the access file holds it, decoded.
struct StoredKey: Sendable {
    let name: String
    let role: String
    let salt: Data
    let hash: Data
    let rateLimit: Double?
}

/// An access file resolved against the schema, every name checked: a typo in a security rule
/// must stop the server (or keep the previous rules on a reload), not be ignored.
struct AccessPolicy: Sendable {
    let roles: [String: ResolvedRole]
    let keys: [String: StoredKey]

    var anonymous: ResolvedRole? { roles[AccessFile.anonymousRole] }

    static func resolve(_ file: AccessFile, document: CSDLDocument, model: EntityModel) throws(AccessFileError) -> AccessPolicy {
        var declared = file.roles
        guard declared["admin"] == nil else { throw AccessFileError("the role admin is built in and cannot be declared: it may do everything") }
        for name in ["reader", "editor"] where declared[name] == nil { declared[name] = AccessFile.Role() }
        var roles: [String: ResolvedRole] = ["admin": ResolvedRole(rules: RoleRules(roleName: "admin", rights: [:], isAnonymous: false),
                                                                   hiddenSets: [], hiddenProperties: [:], rateLimit: nil, isAdmin: true)]
        for (name, role) in declared {
            roles[name] = try resolve(role, named: name, document: document, model: model)
        }
        var keys: [String: StoredKey] = [:]
        for key in file.keys {
            guard !key.name.isEmpty, !key.name.contains(":") else { throw AccessFileError("key name '\(key.name)' must be non-empty and without ':'") }
            guard keys[key.name] == nil else { throw AccessFileError("two keys are named \(key.name)") }
            guard roles[key.role] != nil, key.role != AccessFile.anonymousRole else {
                throw AccessFileError("key \(key.name): unknown role \(key.role)")
            }
            guard let salt = Data(base64Encoded: key.salt), let hash = Data(base64Encoded: key.hmacSHA256), hash.count == 32 else {
                throw AccessFileError("key \(key.name): salt and hmacSHA256 must be base64 (hmacSHA256 of 32 bytes)")
            }
            if let rate = key.rateLimit, !(rate > 0) { throw AccessFileError("key \(key.name): rateLimit must be above 0") }
            keys[key.name] = StoredKey(name: key.name, role: key.role, salt: salt, hash: hash, rateLimit: key.rateLimit)
        }
        return AccessPolicy(roles: roles, keys: keys)
    }

    private static func resolve(_ role: AccessFile.Role, named name: String, document: CSDLDocument, model: EntityModel) throws(AccessFileError) -> ResolvedRole {
        let inRole = "role \(name)"
        if let rate = role.rateLimit, !(rate > 0) { throw AccessFileError("\(inRole): rateLimit must be above 0") }
        let builtIn: EntitySetRights = switch name {
        case "reader": .allRead
        case "editor": .all
        default: .none
        }
        var everySet = builtIn
        let sets = role.sets ?? [:]
        if let text = sets["*"] {
            guard let rights = EntitySetRights(names: text) else { throw AccessFileError("\(inRole): '\(text)' is not an EntitySetRights") }
            everySet = rights
        }
        var rights: [String: EntitySetRights] = [:]
        for set in model.entitySets { rights[set.name] = everySet }
        for (setName, text) in sets where setName != "*" {
            guard model.entitySet(named: setName) != nil else { throw AccessFileError("\(inRole): unknown entity set \(setName)") }
            guard let setRights = EntitySetRights(names: text) else { throw AccessFileError("\(inRole): '\(text)' is not an EntitySetRights") }
            rights[setName] = setRights
        }
        let hiddenSets = Set(rights.filter { $0.value == .none }.keys)
        var hiddenProperties: [String: Set<String>] = [:]
        for entry in role.hide ?? [] {
            let parts = entry.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw AccessFileError("\(inRole): hide '\(entry)' is not Set.Property") }
            guard let type = model.entitySet(named: parts[0])?.entityType ?? model.entityTypes.first(where: { $0.name == parts[0] }) else {
                throw AccessFileError("\(inRole): hide '\(entry)': unknown entity set \(parts[0])")
            }
            guard type.property(named: parts[1]) != nil else { throw AccessFileError("\(inRole): hide '\(entry)': \(type.name) has no property \(parts[1])") }
            if let reason = RoleModel.reasonNotHideable(parts[1], of: type.name, in: document) {
                throw AccessFileError("\(inRole): cannot hide \(entry): \(reason)")
            }
            hiddenProperties[type.name, default: []].insert(parts[1])
        }
        let rowFilters = try resolveRows(role.rows ?? [:], inRole: inRole, hiddenSets: hiddenSets, hiddenProperties: hiddenProperties, model: model)
        return ResolvedRole(rules: RoleRules(roleName: name, rights: rights.filter { $0.value != .none }, isAnonymous: name == AccessFile.anonymousRole,
                                             rowFilters: rowFilters),
                            hiddenSets: hiddenSets, hiddenProperties: hiddenProperties, rateLimit: role.rateLimit, isAdmin: false)
    }

    /// Binds each row filter to its set's type and checks it names only what the role sees: a
    /// filter over a hidden property or set would let the rows that exist tell its values. A
    /// filter may go through navigation, but not to a set that is filtered itself: the filtered
    /// sets' derived tables (`RowFilter.derivedTable`) would then depend on one another,
    /// possibly in a circle.
    private static func resolveRows(_ rows: [String: String], inRole: String, hiddenSets: Set<String>,
                                    hiddenProperties: [String: Set<String>], model: EntityModel) throws(AccessFileError) -> [RowFilter] {
        var filters: [RowFilter] = []
        for (setName, text) in rows.sorted(by: { $0.key < $1.key }) {
            let inRows = "\(inRole): rows of \(setName)"
            guard let set = model.entitySet(named: setName) else { throw AccessFileError("\(inRows): unknown entity set \(setName)") }
            guard !hiddenSets.contains(setName) else { throw AccessFileError("\(inRows): the role cannot see \(setName)") }
            let condition: BoundExpression
            do {
                condition = try ExpressionParser.parseFilter(text, for: set.entityType)
            } catch {
                throw AccessFileError("\(inRows): '\(text)' is not a filter of \(set.entityType.name): \(error)")
            }
            for member in memberPaths(condition) {
                for navigation in member.navigations {
                    if let target = navigation.target.entitySet?.name, hiddenSets.contains(target) {
                        throw AccessFileError("\(inRows): the filter goes to \(target), which the role cannot see")
                    }
                }
                let owner = member.navigations.last?.target ?? set.entityType
                if hiddenProperties[owner.name]?.contains(member.property.name) == true {
                    throw AccessFileError("\(inRows): the filter names \(owner.name).\(member.property.name), which the role cannot see")
                }
            }
            filters.append(RowFilter(entitySet: set, condition: condition, text: text))
        }
        let filtered = Set(filters.map(\.entitySet.name))
        for filter in filters {
            for member in memberPaths(filter.condition) {
                for reached in member.navigations.compactMap({ $0.target.entitySet?.name }) where filtered.contains(reached) {
                    throw AccessFileError("\(inRole): rows of \(filter.entitySet.name): the filter goes to \(reached), which has a row filter of its own")
                }
            }
        }
        return filters
    }

    private static func memberPaths(_ expression: BoundExpression) -> [MemberPath] {
        switch expression {
        case .literal: return []
        case .member(let path): return [path]
        case .convert(let inner, _), .negate(let inner, _), .not(let inner): return memberPaths(inner)
        case .arithmetic(_, let left, let right, _), .comparison(_, let left, let right), .and(let left, let right), .or(let left, let right):
            return memberPaths(left) + memberPaths(right)
        case .call(_, let arguments, _): return arguments.flatMap(memberPaths)
        }
    }
}
