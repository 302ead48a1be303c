import EDM
import ODataURI

/// The WHERE condition that restricts a table to the entities a resource path addresses.
/// `Person(1)/PersonCar` becomes `t0.fk = ?`; longer paths nest `IN (SELECT ...)` subqueries,
/// which the database answers through the primary-key and foreign-key indexes.
enum ScopeCondition {
    static func sql(for path: ResourcePath, alias: String, in context: inout SQLBuildContext, depth: Int = 0) -> String? {
        let last = path.segments[path.segments.count - 1]
        let type = last.targetType
        var conditions: [String] = []
        if let key = last.key {
            conditions.append(keyCondition(type.keyProperties.map(\.columnName), alias: alias, key: key,
                                           segment: path.segments.count - 1, in: &context))
        }
        if case .navigation(let nav, _) = last, let parent = path.parent {
            conditions.append(linkCondition(nav, parent: parent, alias: alias, in: &context, depth: depth))
        }
        return conditions.isEmpty ? nil : conditions.joined(separator: " AND ")
    }

    /// `columns` equal to the key of the path's segment `segment`, bound as path keys.
    static func keyCondition(_ columns: [String], alias: String, key: [EDMValue], segment: Int,
                             in context: inout SQLBuildContext) -> String {
        zip(columns, key).enumerated().map { component, pair in
            context.dialect.column(alias, pair.0) + " = " + context.bindPathKey(SQLValue(pair.1), segment: segment, component: component)
        }.joined(separator: " AND ")
    }

    /// Rows at `alias` that `nav` reaches from the entities of `parent`.
    private static func linkCondition(_ nav: NavigationProperty, parent: ResourcePath, alias: String,
                                      in context: inout SQLBuildContext, depth: Int) -> String {
        let fk = nav.foreignKey
        let principalKey = nav.association.principal.keyProperties.map(\.columnName)
        let (localColumns, parentColumns) = nav.targetHoldsForeignKey ? (fk.columns, principalKey) : (principalKey, fk.columns)

        // Following a navigation from one entity addressed by its key needs no subquery when the
        // key is what the foreign key holds, unless a row filter may hide that entity: then
        // only reading it tells whether its rows are reachable.
        if parent.segments.count == 1, let key = parent.lastKey, nav.targetHoldsForeignKey, !context.isRestricted(parent.targetType) {
            return keyCondition(localColumns, alias: alias, key: key, segment: 0, in: &context)
        }
        let parentAlias = "s" + String(depth + 1)
        let parentType = parent.targetType
        let selected = parentColumns.map { context.dialect.column(parentAlias, $0) }.joined(separator: ", ")
        var subquery = "SELECT " + selected + " FROM " + context.source(parentType) + " AS " + parentAlias
        if let condition = sql(for: parent, alias: parentAlias, in: &context, depth: depth + 1) {
            subquery += " WHERE " + condition
        }
        let local = localColumns.map { context.dialect.column(alias, $0) }
        let left = local.count == 1 ? local[0] : "(" + local.joined(separator: ", ") + ")"
        return left + " IN (" + subquery + ")"
    }
}
