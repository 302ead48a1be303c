import EDM

/// How `$expand` matches a navigation property's targets to their source entities: the target
/// columns compared, and the source columns whose values they must take (a foreign key and the
/// key it references, whichever side holds which).
struct ExpansionLink {
    let navigation: NavigationProperty
    /// The matched columns of the target, by name and by stored-column index.
    let targetColumns: [String]
    let targetIndexes: [Int]
    /// The stored-column indexes of the source values.
    let sourceIndexes: [Int]

    init(_ navigation: NavigationProperty) {
        self.navigation = navigation
        let fk = navigation.foreignKey
        let principalKeyIndexes = navigation.association.principal.keyProperties.map(\.columnIndex)
        if navigation.targetHoldsForeignKey {
            targetIndexes = fk.columnIndexes
            targetColumns = fk.columns
            sourceIndexes = principalKeyIndexes
        } else {
            targetIndexes = principalKeyIndexes
            targetColumns = navigation.target.keyProperties.map(\.columnName)
            sourceIndexes = fk.columnIndexes
        }
    }
}
