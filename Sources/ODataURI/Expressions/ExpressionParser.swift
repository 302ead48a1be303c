import EDM

/// Parses and binds `$filter` and `$orderby` (MS-ODATA 2.2.3.6.1.4 and 2.2.3.6.1.6). The text
/// is the option's value, already percent-decoded. Every failure is a `URIError` naming the
/// problem and its position.
public enum ExpressionParser {
    /// A Boolean expression over entities of `type`.
    public static func parseFilter(_ text: String, for type: EntityType,
                                   limits: ExpressionLimits = ExpressionLimits()) throws(URIError) -> BoundExpression {
        try parseFilter(text, for: type, limits: limits, option: "$filter", parameters: [:])
    }

    /// A filter in which `@name` stands for `parameters[name]`, bound as a literal (a service
    /// operation's); errors name `option`.
    static func parseFilter(_ text: String, for type: EntityType, limits: ExpressionLimits, option: String,
                            parameters: [String: (value: EDMValue, type: PrimitiveType)]) throws(URIError) -> BoundExpression {
        let diagnostics = ExpressionDiagnostics(option: option)
        try requireText(text, diagnostics)
        var parser = try SyntaxParser(text, diagnostics: diagnostics, limits: limits)
        let node = try parser.parseWhole()
        var binder = ExpressionBinder(entityType: type, diagnostics: diagnostics)
        binder.parameters = parameters
        let expression = try binder.bindValue(node)
        guard let resultType = expression.type else { return .literal(.null, .boolean) }
        guard resultType == .boolean else {
            throw diagnostics.typeError("a filter must be an Edm.Boolean expression but this one is \(resultType.name)", at: node.position)
        }
        return expression
    }

    /// The ordering keys, first key first.
    public static func parseOrderBy(_ text: String, for type: EntityType,
                                    limits: ExpressionLimits = ExpressionLimits(), option: String = "$orderby") throws(URIError) -> [OrderByItem] {
        let diagnostics = ExpressionDiagnostics(option: option)
        try requireText(text, diagnostics)
        var parser = try SyntaxParser(text, diagnostics: diagnostics, limits: limits)
        let binder = ExpressionBinder(entityType: type, diagnostics: diagnostics)
        var items: [OrderByItem] = []
        for (node, descending) in try parser.parseOrderBy() {
            let expression = try binder.bindValue(node)
            if let type = expression.type, !ExpressionBinder.isOrdered(type) {
                throw diagnostics.typeError("values of type \(type.name) cannot be ordered", at: node.position)
            }
            items.append(OrderByItem(expression: expression, descending: descending))
        }
        return items
    }

    private static func requireText(_ text: String, _ diagnostics: ExpressionDiagnostics) throws(URIError) {
        guard text.unicodeScalars.contains(where: { !ExpressionLexer.isWhitespace($0) }) else {
            throw URIError.badRequest("\(diagnostics.option) is empty; it needs an expression")
        }
    }
}
