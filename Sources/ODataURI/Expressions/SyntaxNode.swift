/// The untyped tree the parser builds from the text; `ExpressionBinder` then resolves names and
/// types against the model. Every node keeps its position for error messages.
struct SyntaxNode: Sendable {
    indirect enum Kind: Sendable {
        case literal(ExpressionLiteral)
        case null
        /// `a/b/c`: properties reached through navigation properties.
        case member([PathSegment])
        case negate(SyntaxNode)
        case not(SyntaxNode)
        case binary(BinaryOperator, SyntaxNode, SyntaxNode)
        case call(String, [SyntaxNode])
    }

    enum BinaryOperator: Sendable, Equatable {
        case or
        case and
        case comparison(ComparisonOperator)
        case arithmetic(ArithmeticOperator)

        var keyword: String {
            switch self {
            case .or: return "or"
            case .and: return "and"
            case .comparison(let op): return op.rawValue
            case .arithmetic(let op): return op.rawValue
            }
        }
    }

    struct PathSegment: Sendable {
        let name: String
        let position: Int
    }

    let kind: Kind
    /// Where the node starts; for an operator, where its keyword is.
    let position: Int
}
