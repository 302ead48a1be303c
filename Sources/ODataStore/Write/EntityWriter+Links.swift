import EDM

/// Adding and removing the link a navigation property follows (`$links`, bindings in bodies):
/// each is a change of the foreign key on the dependent's row.
extension EntityWriter {
    /// Links `source` to `target` along `navigation`: the dependent's foreign key is set to the
    /// principal's key. For a to-one navigation whose target holds the key, a dependent linked
    /// before is unlinked first.
    public func link(_ source: EntityRecord, _ navigation: NavigationProperty, to target: EntityRecord) throws {
        let association = navigation.association
        try checkChangeable(association)
        if navigation.targetHoldsForeignKey {
            if !navigation.isCollection {
                for previous in try dependents(association, principalKey: principalKey(of: source))
                where previous.keyColumnValues != target.keyColumnValues {
                    try clearForeignKey(of: previous, association)
                }
            }
            try setForeignKey(of: target, association, to: principalKey(of: source))
        } else {
            try setForeignKey(of: source, association, to: principalKey(of: target))
        }
    }

    /// Removes the link from `source` along `navigation`: to `target` for a to-many navigation,
    /// or whatever it links to for a to-one navigation (target nil).
    public func unlink(_ source: EntityRecord, _ navigation: NavigationProperty, from target: EntityRecord?) throws {
        let association = navigation.association
        try checkChangeable(association)
        if navigation.targetHoldsForeignKey {
            let linked = try dependents(association, principalKey: principalKey(of: source))
            if let target {
                guard linked.contains(where: { $0.keyColumnValues == target.keyColumnValues }) else {
                    throw WriteError(.notFound, "\(EntityWriter.describe(target)) is not linked to \(EntityWriter.describe(source)) through \(navigation.name).")
                }
                try clearForeignKey(of: target, association)
            } else {
                for dependent in linked { try clearForeignKey(of: dependent, association) }
            }
        } else {
            let current = association.foreignKey.columnIndexes.map { source.values[$0] }
            if let target, current != principalKey(of: target) {
                throw WriteError(.notFound, "\(EntityWriter.describe(target)) is not linked to \(EntityWriter.describe(source)) through \(navigation.name).")
            }
            if current.contains(.null) { return }
            try clearForeignKey(of: source, association)
        }
    }

    private func setForeignKey(of dependent: EntityRecord, _ association: Association, to key: [SQLValue]) throws {
        var changes: [Int: SQLValue] = [:]
        for (index, value) in zip(association.foreignKey.columnIndexes, key) { changes[index] = value }
        try update(dependent, changes: changes)
    }

    private func clearForeignKey(of dependent: EntityRecord, _ association: Association) throws {
        guard association.foreignKey.isOptional else {
            let principal = association.principal.name
            throw WriteError.badRequest("The relationship \(association.name) requires every \(association.dependent.name) to have a \(principal): \(EntityWriter.describe(dependent)) cannot be unlinked from its \(principal). Delete it, or link it to another \(principal) instead.")
        }
        var changes: [Int: SQLValue] = [:]
        for index in association.foreignKey.columnIndexes { changes[index] = .null }
        try update(dependent, changes: changes)
    }

    /// A foreign key that is part of the dependent's key identifies the dependent; moving it
    /// would change the entity's identity, which OData does not allow.
    private func checkChangeable(_ association: Association) throws {
        let keyIndexes = Set(association.dependent.keyProperties.map(\.columnIndex))
        if association.foreignKey.columnIndexes.contains(where: keyIndexes.contains) {
            throw WriteError.badRequest("The relationship \(association.name) is part of the key of \(association.dependent.name) and cannot be changed; create a new \(association.dependent.name) instead.")
        }
    }
}
