/// A `$filter` expression, built from properties, literals and OData's operators and functions,
/// so that literals are always quoted right:
///
///     let filter = .property("lastName") == "O'Brien" && .property("personID") > 3
///     // lastName eq 'O''Brien' and personID gt 3
///
/// The text is not percent-encoded; `ODataQuery` (or `RestConnection`'s `query:`) does that once.
public struct ODataFilter: Sendable, Hashable, CustomStringConvertible {
    public let text: String

    /// A filter written by hand, used as it is (not percent-encoded).
    public init(_ text: String) {
        self.text = text
    }

    public var description: String { text }

    public static func && (lhs: ODataFilter, rhs: ODataFilter) -> ODataFilter {
        ODataFilter("(\(lhs.text)) and (\(rhs.text))")
    }

    public static func || (lhs: ODataFilter, rhs: ODataFilter) -> ODataFilter {
        ODataFilter("(\(lhs.text)) or (\(rhs.text))")
    }

    public static prefix func ! (filter: ODataFilter) -> ODataFilter {
        ODataFilter("not (\(filter.text))")
    }

    /// `substringof('text',expression)`: the expression contains the text.
    public static func substringOf(_ text: String, _ expression: ODataExpression) -> ODataFilter {
        ODataFilter("substringof(\(text.odataLiteralText),\(expression.text))")
    }

    /// `startswith(expression,'text')`.
    public static func startsWith(_ expression: ODataExpression, _ text: String) -> ODataFilter {
        ODataFilter("startswith(\(expression.text),\(text.odataLiteralText))")
    }

    /// `endswith(expression,'text')`.
    public static func endsWith(_ expression: ODataExpression, _ text: String) -> ODataFilter {
        ODataFilter("endswith(\(expression.text),\(text.odataLiteralText))")
    }
}

/// An operand in a `$filter`: a property (path), a literal, or a function of them.
public struct ODataExpression: Sendable, CustomStringConvertible {
    public let text: String

    public init(raw text: String) {
        self.text = text
    }

    public var description: String { text }

    /// A property, or a path through navigation properties: `"lastName"`, `"Car/make"`.
    public static func property(_ path: String) -> ODataExpression {
        ODataExpression(raw: path)
    }

    /// A literal value, quoted as its type needs.
    public static func literal(_ value: some ODataLiteralConvertible) -> ODataExpression {
        ODataExpression(raw: value.odataLiteralText)
    }

    public func lowercased() -> ODataExpression { ODataExpression(raw: "tolower(\(text))") }
    public func uppercased() -> ODataExpression { ODataExpression(raw: "toupper(\(text))") }
    public func trimmed() -> ODataExpression { ODataExpression(raw: "trim(\(text))") }
    public func length() -> ODataExpression { ODataExpression(raw: "length(\(text))") }

    private static func compare(_ lhs: ODataExpression, _ op: String, _ rhs: ODataExpression) -> ODataFilter {
        ODataFilter("\(lhs.text) \(op) \(rhs.text)")
    }

    public static func == (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "eq", .literal(rhs)) }
    public static func != (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "ne", .literal(rhs)) }
    public static func < (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "lt", .literal(rhs)) }
    public static func <= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "le", .literal(rhs)) }
    public static func > (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "gt", .literal(rhs)) }
    public static func >= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataFilter { compare(lhs, "ge", .literal(rhs)) }

    public static func == (lhs: ODataExpression, rhs: ODataExpression) -> ODataFilter { compare(lhs, "eq", rhs) }
    public static func != (lhs: ODataExpression, rhs: ODataExpression) -> ODataFilter { compare(lhs, "ne", rhs) }

    /// `property eq null`.
    public var isNull: ODataFilter { ODataFilter("\(text) eq null") }
}
