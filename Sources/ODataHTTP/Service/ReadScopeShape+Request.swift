import ODataStore
import ODataURI

extension ReadScopeShape {
    /// How many statements `ODataService.read` runs for a request, known from its parse before
    /// the first one: one where every branch its dispatch may take runs one, several wherever
    /// a branch may run more. Follows `read`, `readEntities`, `readHTML` and `pageEnd`:
    ///
    /// - a single entity: one key lookup or page statement, its single-valued expansions
    ///   joined (`JoinedExpansions.canJoin`); an expanded collection is a statement of its own;
    /// - a page of a set: one statement; below a navigation (`Person(1)/PersonCar`) an empty
    ///   page checks its parent, and `$inlinecount` counts, each another statement;
    /// - a property or `$value`: one lookup; a `$count` of a set: one count, of a navigation
    ///   the parent check first; `$links`: the source checked first, always two;
    /// - a service operation's value: one aggregate; its entities: a page of its set.
    ///
    /// Anything else, and anything uncertain, is `.severalStatements`: a wrong
    /// `.singleStatement` costs its request a second run (`SQLConnection.readScope`).
    public init(reading info: UriInfo) {
        let options = info.options
        if let operation = info.serviceOperation, case .value = operation.result {
            self = .singleStatement
            return
        }
        switch info.resource {
        case .serviceDocument, .metadata, .batch:
            self = .singleStatement
        case .entity:
            self = options.expand.isEmpty || JoinedExpansions.canJoin(options.expand) ? .singleStatement : .severalStatements
        case .entityCollection(let path):
            let pageAlone = path.segments.count == 1 && options.inlineCount != .allPages
            self = pageAlone && (options.expand.isEmpty || JoinedExpansions.canJoin(options.expand)) ? .singleStatement : .severalStatements
        case .property:
            self = .singleStatement
        case .count(let path):
            self = path.segments.count == 1 ? .singleStatement : .severalStatements
        case .links:
            self = .severalStatements
        }
    }
}
