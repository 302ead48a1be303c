import EDM

/// Resolves a syntax tree against an entity type: names become member paths, operands are
/// type-checked and promoted to a common type, and `isof`/`cast` are resolved.
struct ExpressionBinder {
    let entityType: EntityType
    let diagnostics: ExpressionDiagnostics
    /// The values `@name` stands for (a service operation's parameters), bound as literals.
    var parameters: [String: (value: EDMValue, type: PrimitiveType)] = [:]

    /// What a node binds to: a value, or an entity reached through navigation properties, which
    /// only `eq null`, `ne null`, `isof` and `cast` accept.
    enum Operand {
        /// `numericText` is the source text of a number literal, kept for promotion to Decimal.
        case value(BoundExpression, numericText: String?)
        case entity([NavigationProperty])
    }

    /// Binds a node that must be a value.
    func bindValue(_ node: SyntaxNode) throws(URIError) -> BoundExpression {
        try value(of: try bind(node), at: node)
    }

    func bind(_ node: SyntaxNode) throws(URIError) -> Operand {
        switch node.kind {
        case .literal(let literal):
            return .value(.literal(literal.value, literal.type), numericText: literal.numericText)
        case .null:
            return .value(.literal(.null, nil), numericText: nil)
        case .member(let segments):
            return try bindMember(segments)
        case .negate(let operandNode):
            return .value(try bindNegation(operandNode, at: node.position), numericText: nil)
        case .not(let operandNode):
            let operand = try bindValue(operandNode)
            try requireBoolean(operand, at: operandNode, role: "the operand of 'not'")
            return .value(.not(typedNull(operand, as: .boolean)), numericText: nil)
        case .binary(let op, let leftNode, let rightNode):
            return .value(try bindBinary(op, leftNode, rightNode, at: node.position), numericText: nil)
        case .call(let name, let arguments):
            return try bindCall(name, arguments, at: node.position)
        }
    }

    func value(of operand: Operand, at node: SyntaxNode) throws(URIError) -> BoundExpression {
        switch operand {
        case .value(let expression, _):
            return expression
        case .entity(let path):
            throw diagnostics.typeError("'\(path.map(\.name).joined(separator: "/"))' is an entity, not a value; name one of its properties or compare it with null", at: node.position)
        }
    }

    // MARK: Members

    private func bindMember(_ segments: [SyntaxNode.PathSegment]) throws(URIError) -> Operand {
        if segments.count == 1, segments[0].name.hasPrefix("@") {
            guard let parameter = parameters[String(segments[0].name.dropFirst())] else {
                throw diagnostics.unknownName("there is no parameter named '\(segments[0].name.dropFirst())'", at: segments[0].position)
            }
            return .value(.literal(parameter.value, parameter.value.isNull ? nil : parameter.type), numericText: nil)
        }
        var type = entityType
        var navigations: [NavigationProperty] = []
        for (offset, segment) in segments.enumerated() {
            let isLast = offset == segments.count - 1
            if let property = type.property(named: segment.name) {
                guard isLast else {
                    throw diagnostics.typeError("'\(segment.name)' is a property of \(type.qualifiedName), not a navigation property, so '/' cannot follow it", at: segments[offset + 1].position)
                }
                return .value(.member(MemberPath(navigations: navigations, property: property)), numericText: nil)
            }
            if let navigation = type.navigationProperty(named: segment.name) {
                guard !navigation.isCollection else {
                    throw diagnostics.typeError("'\(segment.name)' leads to many \(navigation.target.qualifiedName) entities; only single-valued navigation properties can be followed in an expression", at: segment.position)
                }
                navigations.append(navigation)
                type = navigation.target
                if isLast { return .entity(navigations) }
                continue
            }
            throw diagnostics.unknownName("\(type.qualifiedName) has no property or navigation property named '\(segment.name)'", at: segment.position)
        }
        preconditionFailure("a member path has at least one segment")
    }

    // MARK: Operators

    private func bindNegation(_ operandNode: SyntaxNode, at position: Int) throws(URIError) -> BoundExpression {
        let operand = try bindValue(operandNode)
        guard let type = operand.type else { return .negate(operand, type: nil) }
        guard let resultType = NumericPromotion.negation(type) else {
            throw diagnostics.typeError("'-' needs a numeric operand but this one is \(type.name)", at: position)
        }
        // A negated literal is folded, so that `- 5` and `-5` are the same constant.
        if case .literal(let value, _) = operand {
            switch value {
            case .integer(let number):
                guard number != Int64.min, IntegerArithmetic.fits(-number, in: resultType) else {
                    throw diagnostics.arithmeticError("-(\(number)) overflows \(resultType.name)", at: position)
                }
                return .literal(.integer(-number), resultType)
            case .double(let number): return .literal(.double(-number), resultType)
            case .decimal(let text): return .literal(.decimal(text.hasPrefix("-") ? String(text.dropFirst()) : "-" + text), resultType)
            default: break
            }
        }
        return .negate(convert(operand, numericText: nil, to: resultType), type: resultType)
    }

    private func bindBinary(_ op: SyntaxNode.BinaryOperator, _ leftNode: SyntaxNode, _ rightNode: SyntaxNode,
                            at position: Int) throws(URIError) -> BoundExpression {
        switch op {
        case .and, .or:
            let left = try bindValue(leftNode)
            let right = try bindValue(rightNode)
            try requireBoolean(left, at: leftNode, role: "the left operand of '\(op.keyword)'")
            try requireBoolean(right, at: rightNode, role: "the right operand of '\(op.keyword)'")
            let (l, r) = (typedNull(left, as: .boolean), typedNull(right, as: .boolean))
            return op == .and ? .and(l, r) : .or(l, r)
        case .comparison(let comparison):
            return try bindComparison(comparison, try bind(leftNode), try bind(rightNode), leftNode, rightNode, at: position)
        case .arithmetic(let arithmetic):
            let left = try bind(leftNode)
            let right = try bind(rightNode)
            let l = try value(of: left, at: leftNode), r = try value(of: right, at: rightNode)
            for operand in [l, r] {
                if let type = operand.type, !type.isNumeric {
                    throw diagnostics.typeError("'\(arithmetic.rawValue)' needs numeric operands but these are \(describe(l.type)) and \(describe(r.type))", at: position)
                }
            }
            // Small integers compute in Int32, as in C#.
            let (convertedLeft, convertedRight, type) = try unify(l, numericText(left), r, numericText(right)) { common in
                NumericPromotion.arithmetic(common, common) ?? common
            }
            return try checkedArithmetic(arithmetic, convertedLeft, convertedRight, type: type, at: position)
        }
    }

    /// Arithmetic whose outcome the request's own constants decide is decided here: a division
    /// or modulo by a zero Integer or Decimal constant, or Integer constants whose result does
    /// not fit the result type (Int32 op Int32 is Int32: MS-ODATA's binary numeric promotion),
    /// is the client's error (400), not a null or a silently wider value. Integer constants are
    /// folded, so that a nested constant expression is checked as a whole. Over column values
    /// the same cases give null at run time (see `BoundExpression`).
    private func checkedArithmetic(_ op: ArithmeticOperator, _ left: BoundExpression, _ right: BoundExpression,
                                   type: PrimitiveType?, at position: Int) throws(URIError) -> BoundExpression {
        if let type, op == .divide || op == .modulo, case .literal(let divisor, _) = right, divisor.isZero,
           type.isIntegral || type == .decimal {
            throw diagnostics.arithmeticError("'\(op.rawValue)' by zero", at: position)
        }
        if let type, type.isIntegral, case .literal(.integer(let a), _) = left, case .literal(.integer(let b), _) = right {
            guard let result = IntegerArithmetic.result(op, a, b, type: type) else {
                throw diagnostics.arithmeticError("\(a) \(op.rawValue) \(b) overflows \(type.name)", at: position)
            }
            return .literal(.integer(result), type)
        }
        return .arithmetic(op, left, right, type: type)
    }

    private func bindComparison(_ op: ComparisonOperator, _ left: Operand, _ right: Operand,
                                _ leftNode: SyntaxNode, _ rightNode: SyntaxNode, at position: Int) throws(URIError) -> BoundExpression {
        // An entity reached by navigation compares only with null: is there such an entity?
        for (operand, other) in [(left, right), (right, left)] {
            guard case .entity(let path) = operand else { continue }
            guard !op.isOrdering, case .value(let otherValue, _) = other, otherValue.isNullLiteral else {
                throw diagnostics.typeError("'\(path.map(\.name).joined(separator: "/"))' is an entity; it can only be compared with null using eq or ne", at: position)
            }
            let key = path.last!.target.keyProperties[0]
            return .comparison(op, .member(MemberPath(navigations: path, property: key)), .literal(.null, key.type))
        }
        let (l, r, type) = try unify(value(of: left, at: leftNode), numericText(left), value(of: right, at: rightNode), numericText(right))
        let leftType = l.type, rightType = r.type
        if let leftType, let rightType, leftType != rightType {
            throw diagnostics.typeError("'\(op.rawValue)' cannot compare \(leftType.name) with \(rightType.name)", at: position)
        }
        if op.isOrdering, let type, !Self.isOrdered(type) {
            throw diagnostics.typeError("'\(op.rawValue)' cannot order values of type \(type.name); only eq and ne apply to it", at: position)
        }
        return .comparison(op, l, r)
    }

    /// Brings two operands to a common type: numeric promotion (a number literal meeting a
    /// Decimal is re-read as a Decimal), and an untyped null takes the other side's type.
    /// Operands of unrelated types are returned unchanged for the caller to reject.
    /// `widen` maps the common numeric type to the one the operation computes in.
    private func unify(_ left: BoundExpression, _ leftText: String?, _ right: BoundExpression, _ rightText: String?,
                       widen: (PrimitiveType) -> PrimitiveType = { $0 })
        throws(URIError) -> (BoundExpression, BoundExpression, PrimitiveType?) {
        switch (left.type, right.type) {
        case (nil, nil):
            return (left, right, nil)
        case (nil, let type?):
            let target = type.isNumeric ? widen(type) : type
            return (.literal(.null, target), convert(right, numericText: rightText, to: target), target)
        case (let type?, nil):
            let target = type.isNumeric ? widen(type) : type
            return (convert(left, numericText: leftText, to: target), .literal(.null, target), target)
        case (let leftType?, let rightType?):
            var (left, right) = (left, right)
            if leftType == .decimal, rightType != .decimal, rightText != nil, let adapted = decimalLiteral(right, rightText) {
                right = adapted
            } else if rightType == .decimal, leftType != .decimal, leftText != nil, let adapted = decimalLiteral(left, leftText) {
                left = adapted
            }
            if left.type == right.type && !leftType.isNumeric { return (left, right, leftType) }
            guard let common = NumericPromotion.common(left.type!, right.type!) else { return (left, right, nil) }
            let target = widen(common)
            return (convert(left, numericText: leftText, to: target), convert(right, numericText: rightText, to: target), target)
        }
    }

    /// A number literal re-read as a Decimal from its text, when it is finite.
    private func decimalLiteral(_ expression: BoundExpression, _ text: String?) -> BoundExpression? {
        guard case .literal(let value, let type?) = expression, type.isNumeric, !value.isNull, let text,
              !text.hasSuffix("INF"),
              let decimal = LiteralGrammar.decimalText(text) else { return nil }
        return .literal(.decimal(decimal), .decimal)
    }

    /// `expression` as a value of `target`: a literal is converted in place, anything else is
    /// wrapped in a conversion node.
    func convert(_ expression: BoundExpression, numericText: String?, to target: PrimitiveType) -> BoundExpression {
        guard let source = expression.type else { return .literal(.null, target) }
        guard source != target else { return expression }
        if case .literal(let value, _) = expression, let folded = LiteralGrammar.widened(value, numericText: numericText, to: target) {
            return .literal(folded, target)
        }
        return .convert(expression, to: target)
    }

    /// The untyped null given a type; any other expression unchanged.
    func typedNull(_ expression: BoundExpression, as type: PrimitiveType) -> BoundExpression {
        expression.type == nil ? .literal(.null, type) : expression
    }

    func requireBoolean(_ expression: BoundExpression, at node: SyntaxNode, role: String) throws(URIError) {
        guard let type = expression.type, type != .boolean else { return }
        throw diagnostics.typeError("\(role) must be Edm.Boolean but is \(type.name)", at: node.position)
    }

    func numericText(_ operand: Operand) -> String? {
        if case .value(_, let text) = operand { return text }
        return nil
    }

    func describe(_ type: PrimitiveType?) -> String { type?.name ?? "null" }

    /// Types that `lt`, `le`, `gt` and `ge` (and `$orderby`) can order.
    static func isOrdered(_ type: PrimitiveType) -> Bool {
        type != .binary
    }
}
