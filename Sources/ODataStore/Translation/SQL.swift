import EDM

/// Small SQL text helpers shared by every statement the store builds.
public enum SQL {
    /// Quotes an identifier. Names come from the model, never from a request, but are quoted anyway.
    public static func quote(_ identifier: String) -> String {
        // On the hot path of every query: no Foundation, and no copy unless a quote must double.
        guard identifier.utf8.contains(UInt8(ascii: "\"")) else { return "\"" + identifier + "\"" }
        var quoted = "\""
        for character in identifier {
            quoted.append(character)
            if character == "\"" { quoted.append("\"") }
        }
        return quoted + "\""
    }

    public static func column(_ alias: String, _ column: String) -> String {
        alias + "." + quote(column)
    }

    /// `t."a", t."b", ...`: every stored column of `type`, in stored-column order.
    public static func columns(of type: EntityType, alias: String) -> String {
        type.columnNames.map { column(alias, $0) }.joined(separator: ", ")
    }

    /// The condition linking the source row to the target row of a navigation.
    public static func joinCondition(_ navigation: NavigationProperty, sourceAlias: String, targetAlias: String) -> String {
        let fk = navigation.foreignKey
        let dependentAlias = navigation.targetHoldsForeignKey ? targetAlias : sourceAlias
        let principalAlias = navigation.targetHoldsForeignKey ? sourceAlias : targetAlias
        let principal = navigation.association.principal
        return zip(fk.columns, principal.keyProperties).map { column, key in
            SQL.column(dependentAlias, column) + " = " + SQL.column(principalAlias, key.columnName)
        }.joined(separator: " AND ")
    }
}
