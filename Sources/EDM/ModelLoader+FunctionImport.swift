import CSDL
import Foundation

extension ModelLoader {
    /// A FunctionImport with its storage annotations. The filter and order texts are checked
    /// against the model when the service starts (they are parsed by the URI layer).
    static func makeFunctionImport(_ csdl: CSDLFunctionImport, sets: [EntitySet],
                                   qualify: (String) -> String) throws -> FunctionImport {
        let subject = "FunctionImport \(csdl.name)"
        func annotation(_ name: String) -> String? {
            csdl.annotations.value(namespace: StorageAnnotations.namespace, name: name)
        }
        let method = csdl.httpMethod ?? "GET"
        guard method == "GET" || method == "POST" else { throw ModelError("\(subject): m:HttpMethod must be GET or POST, not \(method)") }

        // A parameter is required unless it says Nullable="true": a call without it is refused
        // rather than run with null.
        var parameters: [FunctionImport.Parameter] = []
        for parameter in csdl.parameters {
            guard parameter.mode == nil || parameter.mode == "In" else {
                throw ModelError("\(subject): parameter \(parameter.name) has Mode \(parameter.mode!); only In parameters are supported")
            }
            guard let type = PrimitiveType(rawValue: parameter.type) else {
                throw ModelError("\(subject): parameter \(parameter.name) has the type \(parameter.type); parameters take Edm primitive types")
            }
            guard !parameter.name.hasPrefix("$"), parameters.allSatisfy({ $0.name != parameter.name }) else {
                throw ModelError("\(subject): the parameter name \(parameter.name) is a system query option or declared twice")
            }
            parameters.append(FunctionImport.Parameter(name: parameter.name, type: type, isNullable: parameter.nullable ?? false))
        }

        guard let returnType = csdl.returnType else {
            throw ModelError("\(subject): a service operation without a ReturnType has nothing to answer; it needs one")
        }
        let result: FunctionImport.Result
        let set: EntitySet
        if returnType.hasPrefix("Collection("), returnType.hasSuffix(")") {
            let element = qualify(String(returnType.dropFirst("Collection(".count).dropLast()))
            guard let setName = csdl.entitySet, let entitySet = sets.first(where: { $0.name == setName }) else {
                throw ModelError("\(subject): a Collection of entities needs the EntitySet attribute naming their set")
            }
            guard entitySet.entityType.qualifiedName == element else {
                throw ModelError("\(subject): the ReturnType \(returnType) is not the type of the entity set \(entitySet.name)")
            }
            guard annotation(StorageAnnotations.aggregate) == nil else {
                throw ModelError("\(subject): store:Aggregate belongs to operations returning a primitive value")
            }
            result = .entities
            set = entitySet
        } else if let type = PrimitiveType(rawValue: returnType) {
            guard let from = annotation(StorageAnnotations.from), let entitySet = sets.first(where: { $0.name == from }) else {
                throw ModelError("\(subject): a primitive ReturnType needs store:From naming the entity set it aggregates over")
            }
            guard let text = annotation(StorageAnnotations.aggregate) else {
                throw ModelError("\(subject): a primitive ReturnType needs store:Aggregate (count, or sum(property), min, max, avg)")
            }
            let aggregate = try parseAggregate(text, over: entitySet.entityType, subject: subject)
            switch aggregate.function {
            case .count:
                guard type.isIntegral else { throw ModelError("\(subject): count returns an integer type, not \(type.name)") }
            case .sum, .avg:
                guard type.isNumeric, aggregate.property!.type.isNumeric else {
                    throw ModelError("\(subject): \(aggregate.function.rawValue) needs a numeric property and ReturnType")
                }
            case .min, .max:
                guard type == aggregate.property!.type || (type.isNumeric && aggregate.property!.type.isNumeric) else {
                    throw ModelError("\(subject): the ReturnType \(type.name) cannot hold a value of \(aggregate.property!.type.name)")
                }
            }
            result = .value(type, aggregate)
            set = entitySet
        } else {
            throw ModelError("\(subject): the ReturnType \(returnType) is not supported; use Collection(Type) with EntitySet, or an Edm primitive type")
        }
        return FunctionImport(name: csdl.name, httpMethod: method, parameters: parameters, result: result, entitySet: set,
                              filter: annotation(StorageAnnotations.filter), orderBy: annotation(StorageAnnotations.orderBy))
    }

    /// `count`, or `function(property)`.
    private static func parseAggregate(_ text: String, over type: EntityType, subject: String) throws -> FunctionImport.Aggregate {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed == "count" { return FunctionImport.Aggregate(function: .count, property: nil) }
        guard let open = trimmed.firstIndex(of: "("), trimmed.hasSuffix(")"),
              let function = FunctionImport.AggregateFunction(rawValue: String(trimmed[..<open])), function != .count
        else {
            throw ModelError("\(subject): store:Aggregate '\(text)' is not count, sum(property), min(property), max(property) or avg(property)")
        }
        let name = trimmed[trimmed.index(after: open)..<trimmed.index(before: trimmed.endIndex)].trimmingCharacters(in: .whitespaces)
        guard let property = type.property(named: name) else {
            throw ModelError("\(subject): store:Aggregate names '\(name)', which is no property of \(type.qualifiedName)")
        }
        return FunctionImport.Aggregate(function: function, property: property)
    }
}
