import EDM

/// One position of a `$skiptoken`: the value of an `$orderby` term or of a key property, which
/// the token's literal must be able to stand for. The service writes order-by values in their
/// storage form (`5L` for Integers, Booleans and instants, `2.5d` for Decimals and Doubles,
/// quoted text for Guids), and keys as literals that a key predicate would read the same
/// (`LiteralParser.value(of:as:)`). A value of another kind would position the page nowhere and
/// answer an empty or a first page, so it is a 400.
enum SkipTokenValue: CustomStringConvertible {
    /// An `$orderby` term of the type (nil for the untyped `null`); null is one of its values.
    case orderBy(PrimitiveType?)
    /// A key property of the type; never null.
    case key(PrimitiveType)

    /// The value `literal` (nil for `null`) stands for here; nil when it cannot stand here.
    func value(of literal: ExpressionLiteral?) -> EDMValue? {
        switch self {
        case .orderBy(let type):
            guard let literal else { return .null }
            guard let type else { return literal.value }
            return Self.stands(literal.value, for: type) ? literal.value : nil
        case .key(let type):
            return literal.flatMap { LiteralParser.value(of: $0, as: type) }
        }
    }

    private static func stands(_ value: EDMValue, for type: PrimitiveType) -> Bool {
        switch (type, value) {
        case (_, .integer) where type.isIntegral: return true
        case (.boolean, .boolean), (.boolean, .integer(0)), (.boolean, .integer(1)): return true
        case (.dateTime, .dateTime), (.dateTimeOffset, .dateTimeOffset), (.time, .time): return true
        case (.dateTime, .integer), (.dateTimeOffset, .integer), (.time, .integer): return true
        case (.double, .double), (.double, .integer), (.double, .decimal),
             (.single, .double), (.single, .integer), (.single, .decimal),
             (.decimal, .double), (.decimal, .integer), (.decimal, .decimal): return true
        case (.string, .string), (.guid, .guid), (.guid, .string), (.binary, .binary): return true
        default: return false
        }
    }

    var description: String {
        switch self {
        case .orderBy(let type): return "an $orderby value of type \(type?.name ?? "null")"
        case .key(let type): return "a key value of type \(type.name)"
        }
    }
}
