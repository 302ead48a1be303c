import EDM
import Foundation
import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// Service operations (`FunctionImport`s, MS-ODATA 2.2.3.5 and 2.2.6.3.9): the parse makes an
/// entity-returning one a read of its set with the operation's filter and order in the options,
/// so it is answered, paged and composed like the set; a primitive-returning one is an
/// aggregate the store computes over the same filtered set.
extension ODataService {
    /// Called with another method than the operation's `m:HttpMethod`: 405 naming it.
    func checkMethod(of operation: FunctionImport, _ method: String) throws {
        let effective = method == "HEAD" ? "GET" : method
        guard effective == operation.httpMethod else {
            throw ServiceError.methodNotAllowed("the service operation \(operation.name) is called with \(operation.httpMethod), not \(method)",
                                                allow: operation.httpMethod)
        }
    }

    /// `{"d": {"Name": value}}`, or `<d:Name>` in XML: the operation's value over its filtered set.
    func readOperationValue(_ operation: FunctionImport, type: PrimitiveType, aggregate: FunctionImport.Aggregate,
                            context: RequestContext) throws -> HTTPResponse {
        guard case .entityCollection(let path) = context.info.resource else { preconditionFailure("an operation reads its set") }
        guard let reader = try context.worker.reader() as? EntityAggregating else {
            throw ServiceError(status: 501, code: "NotImplemented", message: "this store cannot compute the aggregate of \(operation.name)")
        }
        let query = EntityQuery(path: path, options: context.info.options, pageSize: nil)
        let value = try Self.value(try reader.aggregate(aggregate, of: query), of: aggregate, as: type, operation: operation)
        let property = Property(name: operation.name, type: type, columnName: operation.name, columnIndex: 0)
        if try ContentNegotiation.forData(format: context.info.options.format, accept: context.request.header(.accept)) == .atom {
            return ok(atomSerializer(context).propertyDocument(property, value: value), type: "application/xml;charset=utf-8", version: .v1)
        }
        return ok(serializer(context, .v1).propertyDocument(property, value: value), type: "application/json;charset=utf-8", version: .v1)
    }

    /// The stored result as a value of the declared ReturnType. A sum over no entities is 0
    /// (as .NET's `Sum`); min, max and avg over none are null.
    static func value(_ stored: SQLValue, of aggregate: FunctionImport.Aggregate, as type: PrimitiveType,
                      operation: FunctionImport) throws -> EDMValue {
        var stored = stored
        if case .null = stored {
            guard aggregate.function == .sum || aggregate.function == .count else { return .null }
            stored = .integer(0)
        }
        switch (stored, type) {
        case (.integer(let number), _) where type.isIntegral:
            guard let range = type.integerRange, range.contains(number) else {
                throw ServiceError(status: 500, code: "InternalServerError",
                                   message: "the value of \(operation.name), \(number), is outside its ReturnType \(type.name)")
            }
            return .integer(number)
        case (.real(let number), .decimal):
            // From a store that computes decimals as doubles: a sum, min or max is written at
            // the property's scale, an average at ten digits more.
            guard number.isFinite else { return .null }
            let scale = aggregate.property?.scale ?? 0
            let digits = aggregate.function == .avg ? scale + 10 : scale
            return .decimal(LiteralParser.canonicalDecimal(Substring(String(format: "%.\(digits)f", number))))
        case (.integer(let milliseconds), .dateTimeOffset):
            // The aggregate of instants (the store compares them), at UTC.
            return .dateTimeOffset(milliseconds, offsetMinutes: 0)
        default:
            return EDMValue(stored, as: type)
        }
    }
}

extension ODataService {
    /// Checks that each service operation's store:Filter and store:OrderBy bind against the
    /// model, so that a schema's mistake stops the start rather than fails its calls.
    public static func checkServiceOperations(of model: EntityModel) throws(URIError) {
        try UriParser.checkServiceOperations(of: model)
    }
}
