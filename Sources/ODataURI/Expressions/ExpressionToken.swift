import EDM

/// One lexical unit of an expression, with the position where it starts.
struct ExpressionToken: Sendable {
    enum Kind: Sendable, Equatable {
        /// A name: a property, a function, an operator keyword (`eq`, `and`, `not`, `asc`),
        /// or one of `true`, `false` and `null`.
        case identifier(String)
        case literal(ExpressionLiteral)
        case openParenthesis
        case closeParenthesis
        case comma
        case slash
        /// A `-` that does not start a number literal: unary negation.
        case minus
        case end
    }

    let kind: Kind
    let position: Int

    /// True for the identifier `keyword`. Keywords are case-sensitive, as in the spec.
    func isKeyword(_ keyword: String) -> Bool {
        if case .identifier(let name) = kind { return name == keyword }
        return false
    }

    /// How an error message shows this token.
    var display: String {
        switch kind {
        case .identifier(let name): return "'\(name)'"
        case .literal(let literal): return "the literal \(literal.display)"
        case .openParenthesis: return "'('"
        case .closeParenthesis: return "')'"
        case .comma: return "','"
        case .slash: return "'/'"
        case .minus: return "'-'"
        case .end: return "the end of the expression"
        }
    }
}

/// A typed literal as written in the expression.
struct ExpressionLiteral: Sendable, Equatable {
    let value: EDMValue
    let type: PrimitiveType
    /// For a number, its digits as written (sign, digits, point, exponent; no suffix), so that
    /// promotion to Decimal can re-read it exactly instead of going through a binary double.
    let numericText: String?

    init(_ value: EDMValue, _ type: PrimitiveType, numericText: String? = nil) {
        self.value = value
        self.type = type
        self.numericText = numericText
    }

    var display: String {
        if let numericText { return numericText }
        return "of type \(type.name)"
    }
}
