import EDM
import ODataURI
import Synchronization

/// The read plan of one request target: the SQL built for its queries, kept with the target's
/// parse (the gateway keeps it in its `ParseCache`), so that a repeated request finds its
/// prepared statement by a kept `StatementKey` instead of building SQL text and hashing it.
/// It holds engine-neutral text and parameter layouts only: each connection keeps its own
/// prepared statements (`SQLConnection.statement(_:)`). A query's SQL and
/// parameters are a pure function of the query; the query is one of the target, the model and
/// the service configuration, except for what the processor chooses per request (joined
/// expansions), which `QueryShape` checks. Targets that differ only in their keys share one
/// memo: the parameters that hold a path key are bound from each request's own path
/// (`BuiltSQL.pathKeys`). Per thread, like the parse cache and the connection it serves.
public final class QueryMemo {
    var page: PagePlan?
    var count: BuiltSQL?
    var countWithTopSkip: BuiltSQL?
    /// The statement that looks an entity of this target up by its key (`Set(key)` targets).
    var keyLookup: KeyLookup?
    /// The `$expand` levels read by statements of their own, one step each, in the order the
    /// reader meets them: a single entity's streamed collections, or the levels of a page read
    /// by key list, depth first. (Single-valued levels are joined into the page's statement.)
    var expansionSteps: [ExpansionStep] = []
    /// How many statements a read of this target runs (`ReadScopeShape`): known from its parse,
    /// so worked out once with it rather than on every request.
    public let readScopeShape: ReadScopeShape
    /// Whether the target's `$expand` is read as its response is written: streamed below a
    /// single entity (`ExpansionStream.canStream`), joined into a page's rows
    /// (`JoinedExpansions.canJoin`). Worked out with the parse too: asking on every request
    /// took a reference to each expanded navigation property, whose count every worker changes.
    public let expandsInPlace: Bool
    /// The last number given to a memo's `plannedStatements`.
    private static let plans = Atomic<Int>(0)

    /// A read of several statements is `plannedStatements`, with a number no other memo of the
    /// process has, so that an engine can tell this memo's reads from others' that begin alike.
    public init(readScopeShape: ReadScopeShape = .severalStatements, expandsInPlace: Bool = false) {
        self.readScopeShape = readScopeShape == .severalStatements
            ? .plannedStatements(plan: Self.plans.add(1, ordering: .relaxed).newValue) : readScopeShape
        self.expandsInPlace = expandsInPlace
    }

    /// The step at `index`, or a new one kept there from now on when the memo has none for
    /// `navigation` there (a memo serves one target, whose expansions are always the same).
    func step(_ index: Int, along navigation: NavigationProperty, joining: [ExpandNode]) -> ExpansionStep {
        if index < expansionSteps.count, expansionSteps[index].navigation === navigation,
           expansionSteps[index].joining.count == joining.count {
            return expansionSteps[index]
        }
        let step = ExpansionStep(navigation: navigation, joining: joining)
        if index < expansionSteps.count { expansionSteps[index] = step } else if index == expansionSteps.count { expansionSteps.append(step) }
        return step
    }
}

/// One `$expand` level of a read plan: the navigation it follows, its link, the single-valued
/// expansions joined to each of its rows and where they sit, and its SQL (by one source key,
/// or by a list of them). Kept in the target's `QueryMemo`, so that a repeated
/// request neither lays out the joins nor names them to find its statement again.
final class ExpansionStep {
    let navigation: NavigationProperty
    let link: ExpansionLink
    let joining: [ExpandNode]
    let joined: JoinedExpansions?
    /// The number of columns up to the last joined entity.
    let rowWidth: Int
    /// Built on first use.
    private var byKey: StatementKey?
    private var byKeyList: StatementKey?

    init(navigation: NavigationProperty, joining: [ExpandNode]) {
        self.navigation = navigation
        self.link = ExpansionLink(navigation)
        self.joining = joining
        var rowWidth = navigation.target.columnCount
        joined = joining.isEmpty ? nil : JoinedExpansions.layout(joining, columnCount: &rowWidth)
        self.rowWidth = rowWidth
    }

    /// The statement for one source entity (`single`) or for a key list, on the reader's connection.
    func statement(_ reader: EntityReader, single: Bool) throws -> any SQLStatement {
        if let kept = single ? byKey : byKeyList { return try reader.connection.statement(kept) }
        let key = reader.expansionKey(self, single: single)
        if single { byKey = key } else { byKeyList = key }
        return try reader.connection.statement(key)
    }
}

/// SQL text with its parameters: the statement a connection prepares for it is found by `key`.
final class BuiltSQL {
    let key: StatementKey
    /// The parameters of the request it was built for.
    let parameters: [SQLValue]
    /// Which of them are keys of the resource path: a later request with the same target
    /// shape binds its own keys there.
    let pathKeys: [PathKeyParameter]
    /// The query inputs this SQL was built from, beyond the request target.
    let shape: QueryShape

    init(sql: String, parameters: [SQLValue], pathKeys: [PathKeyParameter], shape: QueryShape) {
        self.key = StatementKey(sql)
        self.parameters = parameters
        self.pathKeys = pathKeys
        self.shape = shape
    }

    /// The prepared statement, bound to the parameters with the keys of `path`.
    func boundStatement(on connection: any SQLConnection, for path: ResourcePath) throws -> any SQLStatement {
        let prepared = try connection.statement(key)
        if pathKeys.isEmpty {
            try prepared.bind(parameters)
        } else {
            var values = parameters
            for key in pathKeys {
                // A path of the shape the SQL was built for has a key wherever it had one.
                values[key.parameter] = SQLValue(path.segments[key.segment].key![key.component])
            }
            try prepared.bind(values)
        }
        return prepared
    }
}

/// The SQL of a lookup by key, and the entity type it reads (a memo serves the targets of one
/// shape, hence of one entity set; the type is checked all the same).
struct KeyLookup {
    let type: ObjectIdentifier
    let key: StatementKey
}

/// A page's statement and how to read its rows.
struct PagePlan {
    let built: BuiltSQL
    /// The server page size when it cuts the result: the statement reads one row past it.
    let pageLimit: Int?
    /// The entities joined to each row (`JoinedExpansions`).
    let joined: JoinedExpansions?
    /// The number of columns up to the last joined entity.
    let rowWidth: Int
}

/// What in an `EntityQuery` can differ between two requests with the same target: the
/// processor's choices. A memo built for another shape is built again.
/// (`$top`, `$skip` and the rest come from the target itself.)
struct QueryShape: Equatable {
    let pageSize: Int?
    let joinedExpansions: Int

    init(_ query: EntityQuery) {
        pageSize = query.pageSize
        joinedExpansions = query.joinedExpand.count
    }
}
