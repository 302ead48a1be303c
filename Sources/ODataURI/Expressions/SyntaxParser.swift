/// Recursive-descent parser for the V2 expression grammar, with the precedence of
/// MS-ODATA 2.2.3.6.1.1 from loosest to tightest: `or`; `and`; `eq ne`; `lt le gt ge`;
/// `add sub`; `mul div mod`; unary `-` and `not`; primary (literal, member path, call,
/// parentheses). Binary operators associate to the left.
struct SyntaxParser {
    private let tokens: [ExpressionToken]
    private let diagnostics: ExpressionDiagnostics
    private let limits: ExpressionLimits
    private var index = 0
    private var nodeCount = 0
    private var depth = 0

    init(_ text: String, diagnostics: ExpressionDiagnostics, limits: ExpressionLimits) throws(URIError) {
        self.tokens = try ExpressionLexer.tokens(of: text, diagnostics: diagnostics)
        self.diagnostics = diagnostics
        self.limits = limits
    }

    private var current: ExpressionToken { tokens[index] }

    /// The whole text as one expression.
    mutating func parseWhole() throws(URIError) -> SyntaxNode {
        let node = try parseExpression()
        guard current.kind == .end else {
            throw diagnostics.syntaxError("expected an operator or the end of the expression but found \(current.display)", at: current.position)
        }
        return node
    }

    /// `expression [asc|desc] (, expression [asc|desc])*`
    mutating func parseOrderBy() throws(URIError) -> [(node: SyntaxNode, descending: Bool)] {
        var items: [(node: SyntaxNode, descending: Bool)] = []
        while true {
            let node = try parseExpression()
            var descending = false
            if current.isKeyword("desc") {
                descending = true
                index += 1
            } else if current.isKeyword("asc") {
                index += 1
            }
            items.append((node, descending))
            if current.kind == .end { return items }
            guard current.kind == .comma else {
                throw diagnostics.syntaxError("expected 'asc', 'desc', ',' or the end of the expression but found \(current.display)", at: current.position)
            }
            index += 1
        }
    }

    private mutating func parseExpression() throws(URIError) -> SyntaxNode {
        try enter()
        defer { depth -= 1 }
        return try parseOr()
    }

    private mutating func parseOr() throws(URIError) -> SyntaxNode {
        var left = try parseAnd()
        while current.isKeyword("or") {
            let position = advance()
            left = try node(.binary(.or, left, try parseAnd()), at: position)
        }
        return left
    }

    private mutating func parseAnd() throws(URIError) -> SyntaxNode {
        var left = try parseEquality()
        while current.isKeyword("and") {
            let position = advance()
            left = try node(.binary(.and, left, try parseEquality()), at: position)
        }
        return left
    }

    private mutating func parseEquality() throws(URIError) -> SyntaxNode {
        try parseBinary(operators: [.equal, .notEqual].map(SyntaxNode.BinaryOperator.comparison)) { parser throws(URIError) in
            try parser.parseRelational()
        }
    }

    private mutating func parseRelational() throws(URIError) -> SyntaxNode {
        try parseBinary(operators: [.lessThan, .lessThanOrEqual, .greaterThan, .greaterThanOrEqual].map(SyntaxNode.BinaryOperator.comparison)) { parser throws(URIError) in
            try parser.parseAdditive()
        }
    }

    private mutating func parseAdditive() throws(URIError) -> SyntaxNode {
        try parseBinary(operators: [.add, .subtract].map(SyntaxNode.BinaryOperator.arithmetic)) { parser throws(URIError) in
            try parser.parseMultiplicative()
        }
    }

    private mutating func parseMultiplicative() throws(URIError) -> SyntaxNode {
        try parseBinary(operators: [.multiply, .divide, .modulo].map(SyntaxNode.BinaryOperator.arithmetic)) { parser throws(URIError) in
            try parser.parseUnary()
        }
    }

    /// One precedence level of left-associative binary operators.
    private mutating func parseBinary(operators: [SyntaxNode.BinaryOperator],
                                      operand: (inout SyntaxParser) throws(URIError) -> SyntaxNode) throws(URIError) -> SyntaxNode {
        var left = try operand(&self)
        // Each operator of a chain nests the chain before it one level deeper in the SQL it
        // becomes, so it counts against the depth bound (`and`/`or` chains are written flat).
        var chained = 0
        defer { depth -= chained }
        while case .identifier(let name) = current.kind, let op = operators.first(where: { $0.keyword == name }) {
            let position = advance()
            chained += 1
            depth += 1
            guard depth <= limits.maxDepth else {
                throw diagnostics.limitExceeded("the expression nests deeper than the limit of \(limits.maxDepth) levels (maxDepth, the serve option --max-filter-depth)", at: position)
            }
            let right = try operand(&self)
            left = try node(.binary(op, left, right), at: position)
        }
        return left
    }

    private mutating func parseUnary() throws(URIError) -> SyntaxNode {
        if current.kind == .minus || current.isKeyword("not") {
            let isNot = current.kind != .minus
            let position = advance()
            try enter()
            defer { depth -= 1 }
            let operand = try parseUnary()
            return try node(isNot ? .not(operand) : .negate(operand), at: position)
        }
        return try parsePrimary()
    }

    private mutating func parsePrimary() throws(URIError) -> SyntaxNode {
        let token = current
        switch token.kind {
        case .literal(let literal):
            index += 1
            return try node(.literal(literal), at: token.position)
        case .openParenthesis:
            index += 1
            let inner = try parseExpression()
            try expect(.closeParenthesis, "')' to close the '(' at position \(token.position)")
            return inner
        case .identifier(let name):
            index += 1
            switch name {
            case "null": return try node(.null, at: token.position)
            case "true": return try node(.literal(ExpressionLiteral(.boolean(true), .boolean)), at: token.position)
            case "false": return try node(.literal(ExpressionLiteral(.boolean(false), .boolean)), at: token.position)
            default: break
            }
            if current.kind == .openParenthesis { return try parseCall(name, at: token.position) }
            var segments = [SyntaxNode.PathSegment(name: name, position: token.position)]
            while current.kind == .slash {
                index += 1
                guard case .identifier(let next) = current.kind else {
                    throw diagnostics.syntaxError("expected a property name after '/' but found \(current.display)", at: current.position)
                }
                segments.append(SyntaxNode.PathSegment(name: next, position: current.position))
                index += 1
            }
            return try node(.member(segments), at: token.position)
        default:
            throw diagnostics.syntaxError("expected an expression but found \(token.display)", at: token.position)
        }
    }

    /// `name(` was read up to the parenthesis: the arguments and the closing parenthesis.
    private mutating func parseCall(_ name: String, at position: Int) throws(URIError) -> SyntaxNode {
        let open = advance()
        var arguments: [SyntaxNode] = []
        if current.kind != .closeParenthesis {
            while true {
                arguments.append(try parseExpression())
                guard current.kind == .comma else { break }
                index += 1
            }
        }
        try expect(.closeParenthesis, "',' or ')' to close the '(' at position \(open)")
        return try node(.call(name, arguments), at: position)
    }

    private mutating func expect(_ kind: ExpressionToken.Kind, _ what: String) throws(URIError) {
        guard current.kind == kind else {
            throw diagnostics.syntaxError("expected \(what) but found \(current.display)", at: current.position)
        }
        index += 1
    }

    /// Moves past the current token and returns its position.
    private mutating func advance() -> Int {
        defer { index += 1 }
        return current.position
    }

    private mutating func enter() throws(URIError) {
        depth += 1
        guard depth <= limits.maxDepth else {
            throw diagnostics.limitExceeded("the expression nests deeper than the limit of \(limits.maxDepth) levels (maxDepth, the serve option --max-filter-depth)", at: current.position)
        }
    }

    private mutating func node(_ kind: SyntaxNode.Kind, at position: Int) throws(URIError) -> SyntaxNode {
        nodeCount += 1
        guard nodeCount <= limits.maxNodes else {
            throw diagnostics.limitExceeded("the expression has more than the limit of \(limits.maxNodes) nodes (maxNodes, the serve option --max-filter-nodes)", at: position)
        }
        return SyntaxNode(kind: kind, position: position)
    }
}
