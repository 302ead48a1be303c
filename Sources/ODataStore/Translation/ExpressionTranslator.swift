import EDM
import ODataURI

// PLACEHOLDER — owned by the query-language work (issue 3), which replaces this file.
// The query builder relies only on `ExpressionTranslator.sql(for:in:)`.

public enum ExpressionTranslator {
    /// SQL text for `expression`, evaluated against the row aliased `context.rootAlias`.
    public static func sql(for expression: BoundExpression, in context: inout SQLBuildContext) -> String {
        switch expression {
        case .literal(let value, _):
            return context.bind(SQLValue(value))
        case .member(let path):
            return SQL.column(context.alias(for: path.navigations), path.property.columnName)
        case .equal(let l, let r):
            return "(" + sql(for: l, in: &context) + " = " + sql(for: r, in: &context) + ")"
        case .and(let l, let r):
            return "(" + sql(for: l, in: &context) + " AND " + sql(for: r, in: &context) + ")"
        }
    }
}
