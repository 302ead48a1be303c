import EDM

/// A service operation's query: its filter with the request's parameter values bound as
/// literals, and its default order.
struct ServiceOperationQuery {
    var filter: BoundExpression?
    var orderBy: [OrderByItem]
}

extension UriParser {
    /// The service operation a one-segment path names (`CarsDueForService`, or with `()`).
    func functionImport(addressedBy path: Substring) throws(URIError) -> FunctionImport? {
        var segment = path
        if segment.hasSuffix("()") { segment = segment.dropLast(2) }
        guard !segment.isEmpty, !segment.utf8.contains(UInt8(ascii: "/")), !segment.utf8.contains(UInt8(ascii: "(")) else { return nil }
        return model.functionImport(named: try PercentDecoding.decode(segment, plusAsSpace: false))
    }

    /// `Operation?param=value&$top=...`: the parameters typed by the literal grammar and bound
    /// into the operation's filter (never spliced into its text), and the request's own options.
    func parseServiceOperation(_ operation: FunctionImport, query: Substring) throws(URIError) -> UriInfo {
        let operationQuery = try Self.query(of: operation, parameters: try parameterValues(of: operation, in: query), limits: limits.expression)
        let resource = UriInfo.Resource.entityCollection(ResourcePath(segments: [.entitySet(operation.entitySet, key: nil)]))
        switch operation.result {
        case .entities:
            let options = try parseOptions(query, for: resource, operationQuery: operationQuery)
            return UriInfo(resource: resource, options: options, serviceOperation: operation)
        case .value:
            // A value takes no query options but $format (MS-ODATA 2.2.3.6.1).
            var options = try parseOptions(query, for: .metadata)
            options.filter = operationQuery.filter
            return UriInfo(resource: resource, options: options, serviceOperation: operation)
        }
    }

    /// The operation's filter and order with these parameter values. The schema's texts are
    /// checked at start-up (`checkServiceOperations`), so an error here is the schema's.
    static func query(of operation: FunctionImport, parameters: [String: (value: EDMValue, type: PrimitiveType)],
                      limits: ExpressionLimits) throws(URIError) -> ServiceOperationQuery {
        let type = operation.entitySet.entityType
        // The schema's own texts are not bounded by the request limits.
        let schemaLimits = ExpressionLimits(maxNodes: max(limits.maxNodes, 10_000), maxDepth: max(limits.maxDepth, 64))
        let filter = try operation.filter.map { text throws(URIError) in
            try ExpressionParser.parseFilter(text, for: type, limits: schemaLimits, option: "the store:Filter of \(operation.name)",
                                             parameters: parameters)
        }
        let orderBy = try operation.orderBy.map { text throws(URIError) in
            try ExpressionParser.parseOrderBy(text, for: type, limits: schemaLimits, option: "the store:OrderBy of \(operation.name)")
        } ?? []
        return ServiceOperationQuery(filter: filter, orderBy: orderBy)
    }

    /// Checks that every service operation's filter and order bind against the model, with
    /// sample values of its parameters; the error names the operation and the problem.
    public static func checkServiceOperations(of model: EntityModel) throws(URIError) {
        for operation in model.functionImports {
            var samples: [String: (value: EDMValue, type: PrimitiveType)] = [:]
            for parameter in operation.parameters { samples[parameter.name] = (sample(of: parameter.type), parameter.type) }
            _ = try query(of: operation, parameters: samples, limits: ExpressionLimits())
        }
    }

    private static func sample(of type: PrimitiveType) -> EDMValue {
        switch type {
        case .binary: return .binary([])
        case .boolean: return .boolean(false)
        case .byte, .sByte, .int16, .int32, .int64: return .integer(0)
        case .dateTime: return .dateTime(0)
        case .dateTimeOffset: return .dateTimeOffset(0, offsetMinutes: 0)
        case .decimal: return .decimal("0")
        case .double, .single: return .double(0)
        case .guid: return .guid("00000000-0000-0000-0000-000000000000")
        case .string: return .string("")
        case .time: return .time(0)
        }
    }

    /// Each parameter's value from the query string, typed: a missing one is null where the
    /// parameter is nullable, and a 400 naming it where not; a malformed one a 400 naming it.
    private func parameterValues(of operation: FunctionImport, in query: Substring) throws(URIError) -> [String: (value: EDMValue, type: PrimitiveType)] {
        var given: [String: String] = [:]
        for pairBytes in query.utf8.split(separator: UInt8(ascii: "&")) {
            let pair = Substring(pairBytes)
            let nameEnd = pair.utf8.firstIndex(of: UInt8(ascii: "=")) ?? pair.endIndex
            let name = try PercentDecoding.decode(pair[..<nameEnd], plusAsSpace: true)
            guard operation.parameter(named: name) != nil else { continue }
            guard given[name] == nil else { throw .badRequest("the parameter '\(name)' of \(operation.name) is given more than once") }
            given[name] = nameEnd == pair.endIndex ? "" : try PercentDecoding.decode(pair[pair.utf8.index(after: nameEnd)...], plusAsSpace: true)
        }
        var values: [String: (value: EDMValue, type: PrimitiveType)] = [:]
        for parameter in operation.parameters {
            let described = "the parameter '\(parameter.name)' (\(parameter.type.name)) of \(operation.name)"
            guard let text = given[parameter.name] else {
                guard parameter.isNullable else { throw .badRequest("\(described) is missing; add \(parameter.name)=<value> to the query") }
                values[parameter.name] = (.null, parameter.type)
                continue
            }
            let literal: ExpressionLiteral?
            do {
                literal = try LiteralParser.scan(text)
            } catch {
                throw .badRequest("\(described) is not a valid \(parameter.type.name) literal: '\(text)' (\(error.message))")
            }
            guard let literal else {
                guard parameter.isNullable else { throw .badRequest("\(described) cannot be null") }
                values[parameter.name] = (.null, parameter.type)
                continue
            }
            guard let value = LiteralParser.value(of: literal, as: parameter.type) else {
                throw .badRequest("\(described) is not a valid \(parameter.type.name) literal: '\(text)' is of type \(literal.type.name)")
            }
            values[parameter.name] = (value, parameter.type)
        }
        return values
    }
}
