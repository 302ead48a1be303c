import EDM
import ODataStore
import ODataURI

/// What one role may do with each entity set it sees, checked against every resolved request
/// (each `$batch` part resolves on its own). What it cannot see is not in its model at all
/// (`RoleModel`); these are the rights on what it can.
struct RoleRules: Sendable, Equatable {
    let roleName: String
    /// By set name; a set the role sees and this lacks has no rights.
    let rights: [String: EntitySetRights]
    /// Refusals of the anonymous role are 401: a key may have the right.
    let isAnonymous: Bool
    /// Rows each set is restricted to, for reads (the role's readers) and writes
    /// (`RowFilteredSession`).
    var rowFilters: [RowFilter] = []

    func authorize(_ info: UriInfo, method: String) throws(AccessError) {
        let reading = method == "GET" || method == "HEAD"
        switch info.resource {
        case .serviceDocument, .metadata, .batch:
            return
        case .entityCollection(let path):
            try require(path: path)
            try require(reading ? .readMultiple : .writeAppend, path.targetSet.name)
        case .entity(let path), .property(let path, _, _):
            try require(path: path)
            try require(reading ? .readSingle : Self.entityWriteRight(method), path.targetSet.name)
        case .count(let path):
            try require(path: path)
            try require(path.isSingleEntity ? .readSingle : .readMultiple, path.targetSet.name)
        case .links(let source, let navigation, let targetKey):
            try require(path: source)
            try require(reading ? .readSingle : .writeMerge, source.targetSet.name)
            let target = navigation.target.entitySet!.name
            try require(navigation.isCollection && targetKey == nil && reading ? .readMultiple : .readSingle, target)
        }
        for node in info.options.expand { try require(expanding: node) }
        // A condition or an order through a navigation reads the entity it reaches: without the
        // right to read it, its values must not steer which rows come back.
        if let filter = info.options.filter { try require(reachedBy: filter) }
        for item in info.options.orderBy { try require(reachedBy: item.expression) }
    }

    private func require(reachedBy expression: BoundExpression) throws(AccessError) {
        switch expression {
        case .literal: return
        case .member(let path):
            for navigation in path.navigations { try require(.readSingle, navigation.target.entitySet!.name) }
        case .convert(let inner, _), .negate(let inner, _), .not(let inner):
            try require(reachedBy: inner)
        case .arithmetic(_, let left, let right, _), .comparison(_, let left, let right), .and(let left, let right), .or(let left, let right):
            try require(reachedBy: left)
            try require(reachedBy: right)
        case .call(_, let arguments, _):
            for argument in arguments { try require(reachedBy: argument) }
        }
    }

    private static func entityWriteRight(_ method: String) -> EntitySetRights {
        switch method {
        case "PUT": .writeReplace
        case "DELETE": .writeDelete
        case "POST": .writeAppend
        default: .writeMerge
        }
    }

    /// Every entity a path passes through on its way to its target is read by key.
    private func require(path: ResourcePath) throws(AccessError) {
        for segment in path.segments.dropLast() {
            try require(.readSingle, segment.targetType.entitySet!.name)
        }
    }

    private func require(expanding node: ExpandNode) throws(AccessError) {
        try require(node.navigation.isCollection ? .readMultiple : .readSingle, node.navigation.target.entitySet!.name)
        for child in node.children { try require(expanding: child) }
    }

    /// Refuses a right the role lacks on `set`; also used for the sets a request body names
    /// (deep inserts, bindings).
    func require(_ right: EntitySetRights, _ set: String) throws(AccessError) {
        guard !(rights[set] ?? .none).isSuperset(of: right) else { return }
        let message = "The role '\(roleName)' lacks \(right.names) on \(set)."
        throw isAnonymous ? AccessError.unauthenticated(message + " Send an API key.") : AccessError.forbidden(message)
    }
}
