import EDM

/// Turns a request target (the part after the service root, and the query string) into a
/// `UriInfo`: every name resolved against the model, every literal typed, every bound checked.
public struct UriParser: Sendable {
    public let model: EntityModel
    public let limits: QueryLimits

    public init(model: EntityModel, limits: QueryLimits = QueryLimits()) {
        self.model = model
        self.limits = limits
    }

    /// - Parameters:
    ///   - path: the percent-encoded path below the service root, without a leading slash.
    ///   - query: the raw query string, without the `?`.
    public func parse(path: Substring, query: Substring) throws(URIError) -> UriInfo {
        guard path.utf8.count + query.utf8.count <= limits.maxURILength else {
            throw .badRequest("the request URI is longer than the maximum URI length of \(limits.maxURILength) characters")
        }
        if !model.functionImports.isEmpty, let operation = try functionImport(addressedBy: path) {
            return try parseServiceOperation(operation, query: query)
        }
        let resource = try parseResource(path)
        let options = try parseOptions(query, for: resource)
        return UriInfo(resource: resource, options: options)
    }

    // MARK: - Resource path

    private func parseResource(_ path: Substring) throws(URIError) -> UriInfo.Resource {
        // Split as bytes: a Character split segments graphemes, and this runs on every request.
        var rawSegments = path.utf8.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false).map(Substring.init)
        if rawSegments.last?.isEmpty == true { rawSegments.removeLast() }
        var segments: [String] = []
        for raw in rawSegments {
            guard !raw.isEmpty else { throw .badRequest("the resource path '\(path)' has an empty segment") }
            segments.append(try PercentDecoding.decode(raw, plusAsSpace: false))
        }
        guard let first = segments.first else { return .serviceDocument }
        switch first {
        case "$metadata":
            guard segments.count == 1 else { throw .badRequest("nothing may follow $metadata") }
            return .metadata
        case "$batch":
            guard segments.count == 1 else { throw .badRequest("nothing may follow $batch") }
            return .batch
        default:
            break
        }

        let (setName, setKey) = try splitKey(first)
        guard let set = model.entitySet(named: setName) else {
            throw .notFound("resource not found for the segment '\(first)': there is no entity set '\(setName)'")
        }
        var pathSegments: [PathSegment] = [
            .entitySet(set, key: try setKey.map { k throws(URIError) in try KeyPredicateParser.parse(k, for: set.entityType, segment: first) })
        ]
        var index = 1
        while index < segments.count {
            let text = segments[index]
            let current = ResourcePath(segments: pathSegments)
            let isLast = index == segments.count - 1
            switch text {
            case "$count":
                guard isLast else { throw .badRequest("nothing may follow $count") }
                guard !current.isSingleEntity else { throw .badRequest("$count applies to a collection, and '\(segments[index - 1])' is a single entity") }
                return .count(current)
            case "$links":
                guard current.isSingleEntity else { throw .badRequest("$links must follow a single entity, and '\(segments[index - 1])' is a collection") }
                guard index + 1 < segments.count else { throw .badRequest("$links must be followed by a navigation property") }
                let navText = segments[index + 1]
                let (navName, navKey) = try splitKey(navText)
                guard let nav = current.targetType.navigationProperty(named: navName) else {
                    throw .notFound("\(current.targetType.name) has no navigation property '\(navName)'")
                }
                guard index + 2 == segments.count else { throw .badRequest("nothing may follow $links/\(navText)") }
                let key = try navKey.map { k throws(URIError) in try KeyPredicateParser.parse(k, for: nav.target, segment: navText) }
                if key != nil && !nav.isCollection { throw .badRequest("'\(navName)' is single-valued and takes no key") }
                return .links(source: current, navigation: nav, targetKey: key)
            case "$value":
                throw .badRequest("\(current.targetType.name) is not a media link entry; $value applies to a property")
            default:
                break
            }
            guard current.isSingleEntity else {
                throw .badRequest("'\(segments[index - 1])' is a collection: add a key before the segment '\(text)'")
            }
            let (name, keyText) = try splitKey(text)
            let type = current.targetType
            if let property = type.property(named: name) {
                guard keyText == nil else { throw .badRequest("the property '\(name)' takes no key") }
                if isLast { return .property(current, property, rawValue: false) }
                guard segments[index + 1] == "$value", index + 2 == segments.count else {
                    throw .badRequest("only $value may follow the property '\(name)'")
                }
                return .property(current, property, rawValue: true)
            }
            guard let nav = type.navigationProperty(named: name) else {
                throw .notFound("\(type.name) has no property or navigation property '\(name)'")
            }
            let key = try keyText.map { k throws(URIError) in try KeyPredicateParser.parse(k, for: nav.target, segment: text) }
            if key != nil && !nav.isCollection { throw .badRequest("'\(name)' is single-valued and takes no key") }
            pathSegments.append(.navigation(nav, key: key))
            index += 1
        }
        let resourcePath = ResourcePath(segments: pathSegments)
        return resourcePath.isSingleEntity ? .entity(resourcePath) : .entityCollection(resourcePath)
    }

    /// `Name(predicate)` into its name and predicate text.
    private func splitKey(_ segment: String) throws(URIError) -> (String, Substring?) {
        // By byte: the parentheses are ASCII, and this runs for every segment of every request.
        let utf8 = segment.utf8
        guard let open = utf8.firstIndex(of: UInt8(ascii: "(")) else { return (segment, nil) }
        guard utf8.last == UInt8(ascii: ")") else { throw .badRequest("the segment '\(segment)' has an unclosed key predicate") }
        let name = String(segment[..<open])
        let inner = segment[utf8.index(after: open)..<utf8.index(before: utf8.endIndex)]
        guard !inner.isEmpty else {
            // `Set()` addresses the set, as WCF Data Services allows.
            return (name, nil)
        }
        return (name, inner)
    }

    // MARK: - Query options

    func parseOptions(_ query: Substring, for resource: UriInfo.Resource,
                      operationQuery: ServiceOperationQuery? = nil) throws(URIError) -> QueryOptions {
        var raw = SystemQueryOptions()
        // Split as bytes: a Character split segments graphemes, and this runs on every request.
        for pairBytes in query.utf8.split(separator: UInt8(ascii: "&")) {
            let pair = Substring(pairBytes)
            let nameEnd = pair.utf8.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let name = try PercentDecoding.decode(pair[..<nameEnd], plusAsSpace: true)
            let value = nameEnd == pair.endIndex ? "" : try PercentDecoding.decode(pair[pair.utf8.index(after: nameEnd)...], plusAsSpace: true)
            guard name.hasPrefix("$") else { continue }  // custom query options are the service's to ignore
            guard let option = SystemQueryOptions.Option(name: name) else {
                throw .badRequest("the query option '\(name)' is not supported; system query options are \(SystemQueryOptions.Option.allCases.map(\.name).sorted().joined(separator: ", "))")
            }
            guard raw[option] == nil else { throw .badRequest("the query option '\(name)' is given more than once") }
            raw[option] = value
        }

        var options = QueryOptions()
        if let format = raw[.format] { options.format = try parseFormat(format) }

        let targetType: EntityType?
        let isCollection: Bool
        switch resource {
        case .entityCollection(let path): targetType = path.targetType; isCollection = true
        case .count(let path): targetType = path.targetType; isCollection = true
        case .entity(let path): targetType = path.targetType; isCollection = false
        case .links(_, let nav, let key): targetType = nav.target; isCollection = nav.isCollection && key == nil
        default: targetType = nil; isCollection = false
        }
        guard let type = targetType else {
            if let option = raw.firstGiven(of: [.expand, .select, .filter, .orderby, .top, .skip, .skiptoken, .inlinecount]) {
                throw .badRequest("the query option '\(option.name)' does not apply to this resource")
            }
            return options
        }
        if !isCollection, let option = raw.firstGiven(of: [.filter, .orderby, .top, .skip, .skiptoken, .inlinecount]) {
            throw .badRequest("the query option '\(option.name)' applies to collections only, and this URI addresses a single entity")
        }
        if case .count = resource, raw[.inlinecount] != nil || raw[.expand] != nil || raw[.select] != nil {
            throw .badRequest("$count takes only $filter, $orderby, $top and $skip")
        }
        if case .links = resource, raw[.expand] != nil || raw[.select] != nil {
            throw .badRequest("$links takes no $expand or $select")
        }

        if let text = raw[.expand] { options.expand = try parseExpand(text, for: type) }
        if let text = raw[.select] { options.select = try parseSelect(text, for: type, expand: options.expand) }
        if let text = raw[.filter] { options.filter = try ExpressionParser.parseFilter(text, for: type, limits: limits.expression) }
        if let text = raw[.orderby] { options.orderBy = try ExpressionParser.parseOrderBy(text, for: type, limits: limits.expression) }
        if let operationQuery {
            // The operation's own filter narrows what the request's filters; its order is the
            // default. Before `$skiptoken`, whose values follow the order.
            if let filter = operationQuery.filter { options.filter = options.filter.map { .and(filter, $0) } ?? filter }
            if options.orderBy.isEmpty { options.orderBy = operationQuery.orderBy }
        }
        if let text = raw[.top] {
            let top = try parseCount(text, name: "$top")
            guard top <= limits.maxTop else { throw .badRequest("$top=\(top) exceeds the maximum $top of \(limits.maxTop) (the serve option --max-top)") }
            options.top = top
        }
        if let text = raw[.skip] { options.skip = try parseCount(text, name: "$skip") }
        if let text = raw[.skiptoken] {
            guard !text.isEmpty else { throw .badRequest("$skiptoken is empty") }
            var literals: [ExpressionLiteral?] = []
            for part in LiteralParser.splitOutsideQuotes(Substring(text)) {
                do {
                    literals.append(try LiteralParser.scan(String(part)))
                } catch {
                    throw .badRequest("$skiptoken '\(text)' is not valid: '\(part)' is not a literal (\(error.message))")
                }
            }
            guard literals.count == options.orderBy.count + type.keyProperties.count else {
                throw .badRequest("$skiptoken '\(text)' does not match this query: it needs \(options.orderBy.count + type.keyProperties.count) value(s)")
            }
            let expected = options.orderBy.map { SkipTokenValue.orderBy($0.expression.type) } + type.keyProperties.map { SkipTokenValue.key($0.type) }
            var values: [EDMValue] = []
            for (literal, slot) in zip(literals, expected) {
                guard let value = slot.value(of: literal) else {
                    let written = literal.map { LiteralFormatter.literal($0.value, type: $0.type) } ?? "null"
                    throw .badRequest("$skiptoken '\(text)' does not match this query: \(written) cannot be \(slot)")
                }
                values.append(value)
            }
            options.skipToken = values
        }
        if let text = raw[.inlinecount] {
            switch text {
            case "allpages": options.inlineCount = .allPages
            case "none": options.inlineCount = .none
            default: throw .badRequest("$inlinecount must be 'allpages' or 'none', not '\(text)'")
            }
        }
        return options
    }

    private func parseFormat(_ text: String) throws(URIError) -> QueryOptions.Format {
        switch text.lowercased() {
        case "json", "application/json": return .json
        case "atom", "application/atom+xml": return .atom
        case "xml", "application/xml": return .xml
        default: throw .badRequest("$format='\(text)' is not a format; use json, atom or xml")
        }
    }

    private func parseCount(_ text: String, name: String) throws(URIError) -> Int {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(text) else {
            throw .badRequest("\(name) must be a non-negative integer, not '\(text)'")
        }
        return value
    }

    private func parseExpand(_ text: String, for type: EntityType) throws(URIError) -> [ExpandNode] {
        var roots: [ExpandNode] = []
        let items = text.splitASCII(",").map { $0.trimmingSpaces }
        guard items.count <= limits.maxExpandBreadth else {
            throw .badRequest("$expand names \(items.count) paths, more than the maximum $expand breadth of \(limits.maxExpandBreadth)")
        }
        for item in items {
            guard !item.isEmpty else { throw .badRequest("$expand='\(text)' has an empty path") }
            let names = item.splitASCII("/")
            guard names.count <= limits.maxExpandDepth else {
                throw .badRequest("the $expand path '\(item)' is \(names.count) levels deep, more than the maximum $expand depth of \(limits.maxExpandDepth)")
            }
            var navigations: [NavigationProperty] = []
            var current = type
            for name in names {
                guard let nav = current.navigationProperty(named: String(name)) else {
                    throw .badRequest("$expand: \(current.name) has no navigation property '\(name)' (in '\(item)')")
                }
                navigations.append(nav)
                current = nav.target
            }
            UriParser.insert(navigations[...], into: &roots)
        }
        return roots
    }

    private static func insert(_ path: ArraySlice<NavigationProperty>, into nodes: inout [ExpandNode]) {
        guard let first = path.first else { return }
        if let index = nodes.firstIndex(where: { $0.navigation === first }) {
            insert(path.dropFirst(), into: &nodes[index].children)
        } else {
            var node = ExpandNode(navigation: first)
            insert(path.dropFirst(), into: &node.children)
            nodes.append(node)
        }
    }

    private func parseSelect(_ text: String, for type: EntityType, expand: [ExpandNode]) throws(URIError) -> SelectNode {
        var root = SelectNode()
        for item in text.splitASCII(",").map({ $0.trimmingSpaces }) {
            guard !item.isEmpty else { throw .badRequest("$select='\(text)' has an empty item") }
            let names = item.splitASCII("/").map(String.init)
            try UriParser.select(names[...], item: String(item), type: type, expanded: expand, into: &root)
        }
        return root
    }

    private static func select(_ names: ArraySlice<String>, item: String, type: EntityType, expanded: [ExpandNode],
                               into node: inout SelectNode) throws(URIError) {
        guard let name = names.first else { return }
        let isLast = names.count == 1
        if name == "*" {
            guard isLast else { throw .badRequest("$select: '*' must end the path '\(item)'") }
            node.allProperties = true
            return
        }
        if type.property(named: name) != nil {
            guard isLast else { throw .badRequest("$select: '\(name)' is a property, so nothing may follow it in '\(item)'") }
            node.properties.insert(name)
            return
        }
        guard let nav = type.navigationProperty(named: name) else {
            throw .badRequest("$select: \(type.name) has no property '\(name)' (in '\(item)')")
        }
        if isLast {
            node.navigations[name] = .some(nil)
            return
        }
        guard let expandedNode = expanded.first(where: { $0.navigation === nav }) else {
            throw .badRequest("$select: '\(item)' traverses '\(name)', which is not in $expand; only expanded navigation properties can be traversed in $select")
        }
        var child: SelectNode = (node.navigations[name] ?? nil) ?? SelectNode()
        if node.navigations[name] != nil, node.navigations[name]! == nil {
            return  // the whole entity is already selected
        }
        try select(names.dropFirst(), item: item, type: nav.target, expanded: expandedNode.children, into: &child)
        node.navigations[name] = child
    }
}
