import EDM

// Binding of the canonical functions (MS-ODATA 2.2.3.6.1.1.2): arity, argument types with
// their promotions, result types, and the resolution of `isof` and `cast`.
extension ExpressionBinder {
    func bindCall(_ name: String, _ arguments: [SyntaxNode], at position: Int) throws(URIError) -> Operand {
        switch name {
        case "isof": return .value(try bindIsOf(arguments, at: position), numericText: nil)
        case "cast": return try bindCast(arguments, at: position)
        default: break
        }
        guard let function = ExpressionFunction(rawValue: name) else {
            throw diagnostics.unknownName("there is no function named '\(name)'", at: position)
        }
        var call = FunctionCall(binder: self, function: function, arguments: arguments, position: position)
        return .value(try call.bind(), numericText: nil)
    }

    /// `isof('Namespace.EntityType')` tests the current entity; `isof(expression, 'Type')` tests
    /// a value or a navigated entity. Without inheritance the answer is known from the types,
    /// except that null is of no type: it becomes a constant or a `ne null` test.
    private func bindIsOf(_ arguments: [SyntaxNode], at position: Int) throws(URIError) -> BoundExpression {
        guard arguments.count == 1 || arguments.count == 2 else {
            throw diagnostics.typeError("isof takes 1 or 2 arguments but was given \(arguments.count)", at: position)
        }
        let typeName = try typeNameArgument(arguments.last!, function: "isof")
        let primitive = try primitiveType(named: typeName, at: arguments.last!)
        guard arguments.count == 2 else {
            return .literal(.boolean(primitive == nil && typeName == entityType.qualifiedName), .boolean)
        }
        switch try bind(arguments[0]) {
        case .value(let expression, _):
            guard let primitive, expression.type == primitive else { return .literal(.boolean(false), .boolean) }
            return .comparison(.notEqual, expression, .literal(.null, primitive))
        case .entity(let path):
            let target = path.last!.target
            guard primitive == nil, typeName == target.qualifiedName else { return .literal(.boolean(false), .boolean) }
            let key = target.keyProperties[0]
            return .comparison(.notEqual, .member(MemberPath(navigations: path, property: key)), .literal(.null, key.type))
        }
    }

    /// `cast(expression, 'Edm.Type')` between numeric types (integral targets truncate toward
    /// zero, and have no value outside their range), to the same type, or of null. Casts to entity types need inheritance: not supported.
    private func bindCast(_ arguments: [SyntaxNode], at position: Int) throws(URIError) -> Operand {
        guard arguments.count == 1 || arguments.count == 2 else {
            throw diagnostics.typeError("cast takes 1 or 2 arguments but was given \(arguments.count)", at: position)
        }
        let typeName = try typeNameArgument(arguments.last!, function: "cast")
        guard let target = try primitiveType(named: typeName, at: arguments.last!) else {
            throw diagnostics.unsupported("cast to the entity type '\(typeName)'; this service has no type inheritance", at: position)
        }
        guard arguments.count == 2 else {
            throw diagnostics.typeError("cast of the current entity to the primitive type \(target.name) is not possible", at: position)
        }
        let expression = try bindValue(arguments[0])
        guard let source = expression.type else { return .value(.literal(.null, target), numericText: nil) }
        guard source == target || (source.isNumeric && target.isNumeric) else {
            throw diagnostics.typeError("cannot cast \(source.name) to \(target.name)", at: position)
        }
        // A constant cast to an Integer type is folded; one out of the type's range is refused,
        // not wrapped or saturated. (Over column values such a cast is null.)
        if case .literal(let value, _) = expression, let folded = IntegerArithmetic.truncated(value, to: target) {
            guard let folded else {
                throw diagnostics.arithmeticError("cast of \(LiteralFormatter.literal(value, type: source)) to \(target.name) is out of its range", at: position)
            }
            return .value(.literal(.integer(folded), target), numericText: nil)
        }
        return .value(convert(expression, numericText: nil, to: target), numericText: nil)
    }

    /// The last argument of `isof` and `cast`: a type name in quotes.
    private func typeNameArgument(_ node: SyntaxNode, function: String) throws(URIError) -> String {
        guard case .literal(let literal) = node.kind, case .string(let name) = literal.value else {
            throw diagnostics.typeError("the last argument of \(function) must be a type name in quotes, such as 'Edm.Int32'", at: node.position)
        }
        return name
    }

    /// The primitive type a name denotes; nil for an entity type of the model; an error for any
    /// other name, which is the client's mistake (400), not something this service lacks.
    private func primitiveType(named name: String, at node: SyntaxNode) throws(URIError) -> PrimitiveType? {
        if let type = PrimitiveType(rawValue: name) { return type }
        if name.hasPrefix("Edm.") {
            throw diagnostics.unknownName("'\(name)' is not an EDM primitive type", at: node.position)
        }
        guard isEntityTypeName(name) else {
            throw diagnostics.unknownName("'\(name)' is neither an EDM primitive type nor an entity type of this service; name types in full, such as 'Edm.Int32' or '\(entityType.qualifiedName)'", at: node.position)
        }
        return nil
    }

    /// Whether `name` is the qualified name of this entity type or of one reachable from it
    /// through navigation properties: the types an expression over it can meet.
    private func isEntityTypeName(_ name: String) -> Bool {
        var seen: Set<ObjectIdentifier> = [ObjectIdentifier(entityType)]
        var pending = [entityType]
        while let type = pending.popLast() {
            if type.qualifiedName == name { return true }
            for navigation in type.navigationProperties where seen.insert(ObjectIdentifier(navigation.target)).inserted {
                pending.append(navigation.target)
            }
        }
        return false
    }
}

/// One call of a canonical function being bound: checks arity and each argument's type.
private struct FunctionCall {
    let binder: ExpressionBinder
    let function: ExpressionFunction
    let arguments: [SyntaxNode]
    let position: Int

    mutating func bind() throws(URIError) -> BoundExpression {
        switch function {
        case .substringOf, .startsWith, .endsWith:
            try arity(2)
            return call([try string(0), try string(1)], .boolean)
        case .length:
            try arity(1)
            return call([try string(0)], .int32)
        case .indexOf:
            try arity(2)
            return call([try string(0), try string(1)], .int32)
        case .replace:
            try arity(3)
            return call([try string(0), try string(1), try string(2)], .string)
        case .substring:
            try arity(2, 3)
            var bound = [try string(0), try int32(1)]
            if arguments.count == 3 { bound.append(try int32(2)) }
            return call(bound, .string)
        case .toLower, .toUpper, .trim:
            try arity(1)
            return call([try string(0)], .string)
        case .concat:
            guard arguments.count >= 2 else { throw arityError("at least 2") }
            var bound: [BoundExpression] = []
            for index in arguments.indices { bound.append(try string(index)) }
            return call(bound, .string)
        case .day, .month, .year:
            try arity(1)
            return call([try temporal(0, allowsTime: false)], .int32)
        case .hour, .minute, .second:
            try arity(1)
            return call([try temporal(0, allowsTime: true)], .int32)
        case .round, .floor, .ceiling:
            try arity(1)
            let argument = try binder.bindValue(arguments[0])
            let type: PrimitiveType
            switch argument.type {
            case .decimal?: type = .decimal
            case let other? where other.isNumeric: type = .double
            case nil: type = .double
            case let other?: throw argumentError(0, "must be numeric but is \(other.name)")
            }
            return call([binder.convert(argument, numericText: nil, to: type)], type)
        }
    }

    private func call(_ bound: [BoundExpression], _ type: PrimitiveType) -> BoundExpression {
        .call(function, bound, type: type)
    }

    private func arity(_ counts: Int...) throws(URIError) {
        guard counts.contains(arguments.count) else {
            throw arityError(counts.map(String.init).joined(separator: " or "))
        }
    }

    private func arityError(_ expected: String) -> URIError {
        binder.diagnostics.typeError("\(function.name) takes \(expected) argument\(expected == "1" ? "" : "s") but was given \(arguments.count)", at: position)
    }

    private func argumentError(_ index: Int, _ detail: String) -> URIError {
        binder.diagnostics.typeError("argument \(index + 1) of \(function.name) \(detail)", at: arguments[index].position)
    }

    private func string(_ index: Int) throws(URIError) -> BoundExpression {
        let argument = try binder.bindValue(arguments[index])
        guard let type = argument.type else { return .literal(.null, .string) }
        guard type == .string else { throw argumentError(index, "must be Edm.String but is \(type.name)") }
        return argument
    }

    private func int32(_ index: Int) throws(URIError) -> BoundExpression {
        let argument = try binder.bindValue(arguments[index])
        guard let type = argument.type else { return .literal(.null, .int32) }
        guard NumericPromotion.isImplicit(from: type, to: .int32), type.isIntegral else {
            throw argumentError(index, "must be Edm.Int32 but is \(type.name)")
        }
        return binder.convert(argument, numericText: nil, to: .int32)
    }

    private func temporal(_ index: Int, allowsTime: Bool) throws(URIError) -> BoundExpression {
        let argument = try binder.bindValue(arguments[index])
        guard let type = argument.type else { return .literal(.null, .dateTime) }
        let allowed: [PrimitiveType] = allowsTime ? [.dateTime, .dateTimeOffset, .time] : [.dateTime, .dateTimeOffset]
        guard allowed.contains(type) else {
            throw argumentError(index, "must be \(allowed.map(\.name).joined(separator: " or ")) but is \(type.name)")
        }
        return argument
    }
}
