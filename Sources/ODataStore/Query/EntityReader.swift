import EDM
import ODataURI

/// Reads entities with SQL on any engine's connection: one statement for the addressed
/// entities, one for their count, and one per `$expand` level, whatever the number of rows.
/// One per connection, hence per thread: the SQL text it derives from the model is kept here.
public final class EntityReader {
    public let connection: any SQLConnection
    /// The SQL every statement is written in.
    let dialect: any SQLDialect
    /// SQL text derived from one model object (a type's column list and lookup by key, a
    /// navigation's expansion statements), built once per reader.
    private var selectLists: [ObjectIdentifier: String] = [:]
    private var keyLookups: [ObjectIdentifier: StatementKey] = [:]
    private var expansionKeys: [ExpansionKeyID: StatementKey] = [:]
    /// What each row-filtered table is read as (`restrictRows`); empty, the usual case, reads
    /// the tables themselves.
    var tableSources: [String: String] = [:]

    public init(connection: any SQLConnection) {
        self.connection = connection
        self.dialect = connection.dialect
    }

    /// Whether the reader has built no statement yet that depends on `tableSources`.
    var hasBuiltNoStatement: Bool { keyLookups.isEmpty && expansionKeys.isEmpty }

    /// A statement's build context, reading the row-filtered tables as this reader must.
    func makeContext() -> SQLBuildContext {
        var context = SQLBuildContext(dialect: dialect)
        context.tableSources = tableSources
        return context
    }

    // MARK: - Entities of a path

    /// - Parameter memo: where the SQL of this query is kept for the next request with the same
    ///   target (see `QueryMemo`); nil builds it afresh.
    /// The page's entities kept in an `EntityCursor` (its single-valued expansions, if
    /// `query` joins any, with them), for `expand` to read what they expand before they are
    /// written.
    public func page(_ query: EntityQuery, memo: QueryMemo? = nil) throws -> EntityPage {
        let plan = pagePlan(query, memo: memo)
        let entities = EntityCursor(type: query.path.targetType, width: plan.rowWidth, joined: plan.joined)
        let next = try forEachRow(query, memo: memo) { row in entities.rows.append(row.columns) }
        return EntityPage(entities: entities, nextSkipToken: next)
    }

    /// Lends each entity of the page to `body`, in order and in place (see `EntityRow`), and
    /// returns the skip token of the next page when the server page size cut the result.
    public func forEachRow(_ query: EntityQuery, memo: QueryMemo? = nil, _ body: (EntityRow) throws -> Void) throws -> [EDMValue]? {
        let plan = pagePlan(query, memo: memo)
        let statement = try plan.built.boundStatement(on: connection, for: query.path)
        defer { statement.reset() }
        let (pageLimit, joined, rowWidth) = (plan.pageLimit, plan.joined, plan.rowWidth)
        let type = query.path.targetType
        let columnCount = type.columnCount
        // Taken out of `query` once: the row closure below would otherwise copy the whole
        // query, a retain for each of its references, for every row.
        let orderByCount = query.orderBy.count
        let decimalTerms = query.orderBy.map { $0.expression.type == .decimal }
        var delivered = 0
        // The position of the page's last entity, taken while the statement still sits on it.
        var lastPosition: [EDMValue]?
        var buffer = RowBuffer(width: rowWidth)
        // One row value over the buffer, which each read refills: a value changed per row had to
        // be copied for each call of `body`, a retain and release of its type every row.
        let row = EntityRow(type: type, columns: buffer.storage, joined: joined)
        while try statement.step() {
            if let pageLimit, delivered == pageLimit { return lastPosition }
            statement.read(into: &buffer)
            try body(row)
            delivered += 1
            if delivered == pageLimit {
                lastPosition = (0..<orderByCount).map {
                    EntityReader.tokenValue(statement.value(at: columnCount + $0), isDecimal: decimalTerms[$0])
                } + row.keyValues
            }
        }
        return nil
    }

    /// The page's plan, from `memo` when it holds one for this query's shape.
    private func pagePlan(_ query: EntityQuery, memo: QueryMemo?) -> PagePlan {
        let shape = QueryShape(query)
        if let plan = memo?.page, plan.built.shape == shape { return plan }
        let plan = buildPagePlan(query, shape: shape)
        memo?.page = plan
        return plan
    }

    /// The page's SQL and parameters, and the page size when the server cuts the result (the
    /// statement reads one row past the page to learn whether there is more); the entities
    /// joined to each row, and the number of columns up to the last of them.
    private func buildPagePlan(_ query: EntityQuery, shape: QueryShape) -> PagePlan {
        let type = query.path.targetType
        var context = makeContext()
        var select = selectList(type, alias: context.rootAlias)
        var orderTerms: [String] = []
        for (index, item) in query.orderBy.enumerated() {
            let alias = "__o\(index)"
            select += ", " + ExpressionTranslator.orderKey(for: item.expression, in: &context) + " AS " + alias
            orderTerms.append(dialect.orderTerm(alias, descending: item.descending))
        }
        // Ties are broken by the key, so that the order, and so paging, is stable.
        for key in type.keyProperties {
            orderTerms.append(dialect.keyOrderTerm(dialect.column(context.rootAlias, key.columnName)))
        }

        var conditions = whereConditions(query, in: &context)
        if let token = query.skipToken {
            conditions.append(afterCondition(token, query: query, in: &context))
        }

        // Joined expansions come after the order-by values, which keep their positions.
        var rowWidth = type.columnCount + query.orderBy.count
        let joined = query.joinedExpand.isEmpty ? nil
            : JoinedExpansions.plan(query.joinedExpand, context: &context, select: &select, columnCount: &rowWidth)

        var sql = "SELECT " + select + " FROM " + context.source(type) + " AS " + context.rootAlias
        var tail = ""
        if !conditions.isEmpty { tail += " WHERE " + conditions.joined(separator: " AND ") }
        tail += " ORDER BY " + orderTerms.joined(separator: ", ")

        // Read one row past the page to learn whether there is more.
        var limit: Int?
        var pageLimit: Int?
        if let top = query.top { limit = top }
        if let pageSize = query.pageSize, pageSize < (limit ?? Int.max) {
            pageLimit = pageSize
            limit = pageSize + 1
        }
        var tailParameters: [SQLValue] = []
        var limitPlaceholder: String?, offsetPlaceholder: String?
        if let limit {
            limitPlaceholder = dialect.placeholder(context.parameters.count)
            tailParameters.append(.integer(Int64(limit)))
        }
        if let skip = query.skip, query.skipToken == nil, skip > 0 {
            offsetPlaceholder = dialect.placeholder(context.parameters.count + tailParameters.count)
            tailParameters.append(.integer(Int64(skip)))
        }
        tail += dialect.limitClause(limit: limitPlaceholder, offset: offsetPlaceholder)
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        sql += tail

        let built = BuiltSQL(sql: sql, parameters: context.parameters + tailParameters, pathKeys: context.pathKeyParameters, shape: shape)
        return PagePlan(built: built, pageLimit: pageLimit, joined: joined, rowWidth: rowWidth)
    }

    /// The first entity the path addresses, or nil, owned: for a write.
    public func single(_ path: ResourcePath) throws -> EntityRecord? {
        var record: EntityRecord?
        try withSingle(path) { row in record = row.record }
        return record
    }

    /// The first entity the path addresses, if any, kept in an `EntityCursor` for `expand`.
    public func entity(at path: ResourcePath) throws -> EntityCursor {
        let entities = EntityCursor(type: path.targetType, width: path.targetType.columnCount)
        try withSingle(path) { row in entities.rows.append(row.columns) }
        return entities
    }

    /// Lends the first entity the path addresses to `body`, in place; false when there is none.
    /// `Set(key)` is one primary-key lookup; any other path, or an entity with single-valued
    /// expansions, which are joined into its row, is its page's statement, cut to one.
    /// The entity also expands `nodes` as it is written (check `ExpansionStream.canStream`
    /// first): single-valued ones from the joined row, and each expanded collection when the
    /// response gets to it (`ExpansionStream`); a failure there, or a collection past `budget`
    /// (whose entity the caller has counted), is thrown there.
    /// Not generic over a result: other modules would call a generic unspecialized, looking up
    /// type metadata at run time on every request.
    /// - Parameter memo: where the statements are kept for the next request with the same
    ///   target, or one that differs only in its keys; nil builds them afresh.
    @discardableResult
    public func withSingle(_ path: ResourcePath, streaming nodes: [ExpandNode] = [], memo: QueryMemo? = nil,
                           budget: EntityBudget = .unlimited, _ body: (EntityRow) throws -> Void) throws -> Bool {
        // Split only when something is joined: the usual expansion, all collections, keeps its array.
        let joinsAny = nodes.contains { !$0.navigation.isCollection }
        let joined = joinsAny ? nodes.filter { !$0.navigation.isCollection } : []
        let collections = joinsAny ? nodes.filter { $0.navigation.isCollection } : nodes
        if joined.isEmpty, path.segments.count == 1, case .entitySet(let set, let key?) = path.segments[0] {
            let stream = collections.isEmpty ? nil : ExpansionStream(reader: self, nodes: collections, memo: memo, budget: budget)
            let statement = try keyStatement(set.entityType, memo: memo)
            try statement.bind(key)
            return try readSingleRow(statement, of: set.entityType, streamed: stream, body)
        }
        var query = EntityQuery(path: path)
        query.top = 1
        query.joinedExpand = joined
        var found = false
        _ = try forEachRow(query, memo: joined.isEmpty ? nil : memo) { row in
            found = true
            guard !nodes.isEmpty else { return try body(row) }
            // The entities joined to the row count as the response's too.
            var budget = budget
            try budget.spend(row.entityCount - 1)
            let stream = collections.isEmpty ? nil : ExpansionStream(reader: self, nodes: collections, memo: memo, budget: budget)
            try body(EntityRow(type: row.type, columns: row.columns, offset: row.offset, joined: row.joined, expansions: stream))
        }
        return found
    }

    /// Lends the row a key lookup finds to `body`; false when it finds none.
    private func readSingleRow(_ statement: any SQLStatement, of type: EntityType, streamed: ExpansionStream?,
                               _ body: (EntityRow) throws -> Void) throws -> Bool {
        defer { statement.reset() }
        guard try statement.step() else { return false }
        var buffer = RowBuffer(width: type.columnCount)
        statement.read(into: &buffer)
        try body(EntityRow(type: type, columns: buffer.storage, expansions: streamed))
        return true
    }

    /// `Set(key)`, the most frequent request of all: one primary-key lookup whose SQL is built
    /// once per reader and kept in the target's memo too, found there without a lookup by
    /// type. The caller binds the key.
    private func keyStatement(_ type: EntityType, memo: QueryMemo?) throws -> any SQLStatement {
        if let kept = memo?.keyLookup, kept.type == ObjectIdentifier(type) {
            return try connection.statement(kept.key)
        }
        let key: StatementKey
        if let built = keyLookups[ObjectIdentifier(type)] {
            key = built
        } else {
            key = StatementKey("SELECT " + selectList(type, alias: "t0") + " FROM " + makeContext().source(type) + " AS t0 WHERE "
                + dialect.equality(columns: type.keyProperties.map(\.columnName), alias: "t0"))
            keyLookups[ObjectIdentifier(type)] = key
        }
        memo?.keyLookup = KeyLookup(type: ObjectIdentifier(type), key: key)
        return try connection.statement(key)
    }

    /// The number of entities the query addresses, ignoring paging (for `$count` and `$inlinecount`).
    /// `$top` and `$skip` apply when `applyTopSkip` is set, as for the `$count` segment.
    public func count(_ query: EntityQuery, applyTopSkip: Bool, memo: QueryMemo? = nil) throws -> Int {
        let shape = QueryShape(query)
        let built: BuiltSQL
        if let memoized = applyTopSkip ? memo?.countWithTopSkip : memo?.count, memoized.shape == shape {
            built = memoized
        } else {
            built = buildCount(query, applyTopSkip: applyTopSkip, shape: shape)
            if applyTopSkip { memo?.countWithTopSkip = built } else { memo?.count = built }
        }
        let statement = try built.boundStatement(on: connection, for: query.path)
        defer { statement.reset() }
        guard try statement.step(), case .integer(let n) = statement.value(at: 0) else { return 0 }
        return Int(n)
    }

    private func buildCount(_ query: EntityQuery, applyTopSkip: Bool, shape: QueryShape) -> BuiltSQL {
        let type = query.path.targetType
        var context = makeContext()
        let conditions = whereConditions(query, in: &context)
        var inner = "SELECT 1 FROM " + context.source(type) + " AS " + context.rootAlias
        if !context.joins.isEmpty { inner += " " + context.joins.joined(separator: " ") }
        if !conditions.isEmpty { inner += " WHERE " + conditions.joined(separator: " AND ") }
        var parameters = context.parameters
        if applyTopSkip && (query.top != nil || query.skip != nil) {
            var limit: String?, offset: String?
            if let top = query.top {
                limit = dialect.placeholder(parameters.count)
                parameters.append(.integer(Int64(top)))
            }
            if let skip = query.skip {
                offset = dialect.placeholder(parameters.count)
                parameters.append(.integer(Int64(skip)))
            }
            inner += dialect.limitClause(limit: limit, offset: offset)
        }
        return BuiltSQL(sql: "SELECT count(*) FROM (" + inner + ") AS counted", parameters: parameters, pathKeys: context.pathKeyParameters,
                        shape: shape)
    }

    func whereConditions(_ query: EntityQuery, in context: inout SQLBuildContext) -> [String] {
        var conditions: [String] = []
        if let scope = ScopeCondition.sql(for: query.path, alias: context.rootAlias, in: &context) {
            conditions.append(scope)
        }
        if let filter = query.filter {
            // True exactly where the filter is true; plain comparisons stay usable by indexes.
            conditions.append(ExpressionTranslator.condition(for: filter, in: &context))
        }
        return conditions
    }

    /// Rows strictly after the skip-token position in the query's order (order-by terms, then key).
    /// NULL sorts first in ascending order (`SQLDialect.orderTerm`); the comparisons follow that.
    private func afterCondition(_ token: [EDMValue], query: EntityQuery, in context: inout SQLBuildContext) -> String {
        let type = query.path.targetType
        var terms: [(expression: BoundExpression?, column: String, descending: Bool)] = []
        for item in query.orderBy {
            terms.append((item.expression, "", item.descending))
        }
        for key in type.keyProperties {
            terms.append((nil, dialect.column(context.rootAlias, key.columnName), false))
        }
        // A term's SQL is translated afresh at each use, so that its parameters are bound once
        // per `?` and in the order the `?` appear.
        func sql(_ index: Int) -> String {
            guard let expression = terms[index].expression else { return terms[index].column }
            return ExpressionTranslator.orderKey(for: expression, in: &context)
        }
        var alternatives: [String] = []
        for (index, term) in terms.enumerated() {
            var parts: [String] = []
            for previous in 0..<index {
                let previousSQL = sql(previous)
                let bound = context.bind(Self.positionValue(token[previous], isOrderBy: terms[previous].expression != nil))
                parts.append(dialect.nullSafeEqual(previousSQL, bound, negated: false))
            }
            let value = Self.positionValue(token[index], isOrderBy: term.expression != nil)
            switch (value, term.descending) {
            case (.null, false): parts.append(sql(index) + " IS NOT NULL")
            case (.null, true): parts.append(dialect.falseValue)
            case (_, false):
                let termSQL = sql(index)
                parts.append(termSQL + " > " + context.bind(value))
            case (_, true):
                let termSQL = sql(index)
                let bound = context.bind(value)
                parts.append("(" + termSQL + " < " + bound + " OR " + sql(index) + " IS NULL)")
            }
            alternatives.append("(" + parts.joined(separator: " AND ") + ")")
        }
        return "(" + alternatives.joined(separator: " OR ") + ")"
    }

    /// A skip token's value as its term compares it: an order-by term of a DateTimeOffset
    /// compares the instant (`DateTimeOffsetStorage`), a key its stored value.
    private static func positionValue(_ value: EDMValue, isOrderBy: Bool) -> SQLValue {
        if isOrderBy, case .dateTimeOffset(let milliseconds, _) = value { return .integer(milliseconds) }
        return SQLValue(value)
    }

    /// An order-by value as it goes into a skip token; its literal form tells its storage class,
    /// but for a decimal kept as text (`SQLDialect.exactDecimal`), which stays a decimal.
    private static func tokenValue(_ value: SQLValue, isDecimal: Bool) -> EDMValue {
        switch value {
        case .null: return .null
        case .integer(let i): return .integer(i)
        case .real(let d): return .double(d)
        case .text(let s): return isDecimal ? .decimal(s) : .string(s)
        case .blob(let b): return .binary(b)
        }
    }

    /// `SQLDialect.columns(of:alias:)` for the root alias, built once per reader.
    private func selectList(_ type: EntityType, alias: String) -> String {
        precondition(alias == "t0", "the cached select list is for the root alias")
        if let list = selectLists[ObjectIdentifier(type)] { return list }
        let list = dialect.columns(of: type, alias: alias)
        selectLists[ObjectIdentifier(type)] = list
        return list
    }

    // MARK: - $expand

    /// Reads what `nodes` expand below `entities`, level by level, into cursors of their own:
    /// one statement per node and level, whatever the number of entities, except that
    /// single-valued expansions below a node are joined into its statement. Each entity then
    /// lends its children (`EntityRow.children(for:)`). They are counted against `budget`, each
    /// as often as a response writes it (the caller counts `entities`); past a limit it
    /// throws, `LimitExceeded`, before reading on.
    /// - Parameter memo: the target's read plan, whose expansion steps are kept there.
    public func expand(_ entities: EntityCursor, _ nodes: [ExpandNode], memo: QueryMemo? = nil, budget: inout EntityBudget) throws {
        var step = 0
        try expand(entities, written: [Int](repeating: 1, count: entities.count), nodes, memo: memo, step: &step, budget: &budget)
    }

    /// `expand(_:_:budget:)` with no limit.
    public func expand(_ entities: EntityCursor, _ nodes: [ExpandNode]) throws {
        var budget = EntityBudget.unlimited
        try expand(entities, nodes, budget: &budget)
    }

    /// - Parameter written: how many times a response writes each entity: one related entity
    ///   may be shared by several parents (`ExpansionLink`), and is written under each.
    /// - Parameter step: the place of the next level among the plan's steps, depth first.
    private func expand(_ entities: EntityCursor, written: [Int], _ nodes: [ExpandNode], memo: QueryMemo?, step: inout Int,
                        budget: inout EntityBudget) throws {
        guard entities.count > 0, !nodes.isEmpty else { return }
        let expansions = LevelExpansions()
        entities.expansions = expansions
        for node in nodes {
            // `Person(1)?$expand=PersonCar/Car`: each PersonCar row brings its Car along.
            let joinsChildren = !node.children.isEmpty && JoinedExpansions.canJoin(node.children)
            let joining = joinsChildren ? node.children : []
            let plan = memo?.step(step, along: node.navigation, joining: joining) ?? ExpansionStep(navigation: node.navigation, joining: joining)
            step += 1
            let (children, childrenWritten) = try expand(entities, written: written, along: plan, into: expansions, budget: &budget)
            if !node.children.isEmpty && !joinsChildren {
                try expand(children, written: childrenWritten, node.children, memo: memo, step: &step, budget: &budget)
            }
        }
    }

    /// Reads the targets of the step's navigation for every entity, with its single-valued
    /// expansions joined to each, adds them to `expansions`, and returns them with how many
    /// times each is written.
    private func expand(_ entities: EntityCursor, written: [Int], along step: ExpansionStep, into expansions: LevelExpansions,
                        budget: inout EntityBudget) throws -> (children: EntityCursor, written: [Int]) {
        let nav = step.navigation
        let target = nav.target
        let link = step.link
        let (targetIndexes, sourceIndexes) = (link.targetIndexes, link.sourceIndexes)

        var seen = Set<LinkKey>()
        var tuples: [LinkKey] = []
        var sourceKeys: [LinkKey?] = []
        sourceKeys.reserveCapacity(entities.count)
        for index in 0..<entities.count {
            let key = LinkKey(entities[index], sourceIndexes)
            sourceKeys.append(key)
            if let key, seen.insert(key).inserted { tuples.append(key) }
        }

        let (joined, rowWidth) = (step.joined, step.rowWidth)
        let children = EntityCursor(type: target, width: rowWidth, joined: joined)
        // The entities each child brings: itself and those joined to it.
        var weights: [Int] = []
        var byLink: [LinkKey: [Int]] = [:]
        if !tuples.isEmpty {
            // One source entity (`Person(7)?$expand=...`) is an indexed lookup by equality;
            // many are a key list. Either statement is prepared once and kept in the step.
            let single = tuples.count == 1
            let statement = try step.statement(self, single: single)
            try statement.bind(single ? [tuples[0].first] + tuples[0].rest : [dialect.keyList(tuples)])
            defer { statement.reset() }
            var buffer = RowBuffer(width: rowWidth)
            let row = EntityRow(type: target, columns: buffer.storage, joined: joined)
            var read = 0
            while try statement.step() {
                statement.read(into: &buffer)
                let weight = joined == nil ? 1 : row.entityCount
                // Every child read is written at least once: reading on past the budget would
                // only keep more rows in memory for a response that is refused anyway.
                read += weight
                try budget.checkRoom(for: read)
                children.rows.append(buffer.storage)
                weights.append(weight)
                if let key = LinkKey(row, targetIndexes) {
                    byLink[key, default: []].append(children.count - 1)
                    if nav.isCollection, let count = byLink[key]?.count { try budget.checkCollection(count, along: nav) }
                }
            }
        }

        var childrenWritten = [Int](repeating: 0, count: children.count)
        for (key, times) in zip(sourceKeys, written) {
            var attached = key.flatMap { byLink[$0] } ?? []
            if !nav.isCollection && attached.count > 1 { attached.removeLast(attached.count - 1) }
            var entities = 0
            for index in attached {
                childrenWritten[index] += times
                entities += weights[index]
            }
            let (total, overflow) = entities.multipliedReportingOverflow(by: times)
            try budget.spend(overflow ? .max : total)
        }
        expansions.children.append(.init(navigation: nav, sourceIndexes: sourceIndexes, entities: children, byLink: byLink))
        return (children, childrenWritten)
    }

    /// The SQL reading the targets of a step's link for one source entity (`single`: by
    /// equality) or for a key list, with the step's single-valued expansions joined to each
    /// row; built once per reader.
    func expansionKey(_ step: ExpansionStep, single: Bool) -> StatementKey {
        let (link, joined) = (step.link, step.joined)
        let target = step.navigation.target
        let id = ExpansionKeyID(navigation: ObjectIdentifier(step.navigation), single: single, joining: joined?.signature ?? "")
        if let key = expansionKeys[id] { return key }
        let key = StatementKey({
            var context = makeContext()
            let alias = context.rootAlias
            var select = selectList(target, alias: alias)
            joined?.addSQL(context: &context, select: &select)
            return "SELECT " + select + " FROM " + context.source(target) + " AS " + alias
                + context.joins.map { " " + $0 }.joined()
                + " WHERE " + (single ? dialect.equality(columns: link.targetColumns, alias: alias)
                                      : dialect.keyMembership(columns: link.targetColumns, alias: alias, placeholder: dialect.placeholder(0)))
                + " ORDER BY " + target.keyProperties.map { dialect.keyOrderTerm(dialect.column(alias, $0.columnName)) }.joined(separator: ", ")
        }())
        expansionKeys[id] = key
        return key
    }
}

/// What the SQL of an expansion statement is derived from: the navigation followed, by one
/// source key or a list of them, and the single-valued expansions joined to it (their
/// `JoinedExpansions.signature`; empty when none).
private struct ExpansionKeyID: Hashable {
    let navigation: ObjectIdentifier
    let single: Bool
    let joining: String
}
