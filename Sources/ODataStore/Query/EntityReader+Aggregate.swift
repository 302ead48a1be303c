import EDM
import ODataURI

extension EntityReader: EntityAggregating {
    public func aggregate(_ aggregate: FunctionImport.Aggregate, of query: EntityQuery) throws -> SQLValue {
        let type = query.path.targetType
        var context = makeContext()
        let conditions = whereConditions(query, in: &context)
        let computed: String
        if let property = aggregate.property {
            // Through the translator, which reads Decimal as the engine computes it; for min
            // and max with the collation that orders decimals by value.
            let member = BoundExpression.member(MemberPath(navigations: [], property: property))
            let column = aggregate.function == .min || aggregate.function == .max
                ? ExpressionTranslator.orderKey(for: member, in: &context) : ExpressionTranslator.sql(for: member, in: &context)
            if property.type == .decimal, let exact = dialect.exactDecimal, aggregate.function == .sum || aggregate.function == .avg {
                // SQLite's own sum and avg would add the decimals' text as doubles; avg is rounded as a quotient.
                let sum = exact.sum(column)
                computed = aggregate.function == .sum ? sum : exact.arithmetic(.divide, sum, "count(" + column + ")")
            } else {
                computed = aggregate.function.rawValue + "(" + column + ")"
            }
        } else {
            computed = "count(*)"
        }
        var sql = "SELECT " + computed + " FROM " + context.source(type) + " AS " + context.rootAlias
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        if !conditions.isEmpty { sql += " WHERE " + conditions.joined(separator: " AND ") }
        return try connection.statement(sql).rows(context.parameters).first?.first ?? .null
    }
}
