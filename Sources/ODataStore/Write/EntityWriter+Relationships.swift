import EDM

/// The relationship rules a write must keep: a dependent refers to a principal that exists,
/// a required relationship is never left empty, and an entity others refer to is deleted only
/// where the schema says the delete cascades.
extension EntityWriter {
    /// The associations in which `type` holds the foreign key.
    public func associations(dependent type: EntityType) -> [Association] {
        model.associations.filter { $0.dependent === type }
    }

    /// Checks the foreign keys of a row about to be written. `changed` limits the existence
    /// checks to relationships whose columns change (nil: all of them, as for an insert).
    func checkReferences(of type: EntityType, columns: [SQLValue], changed: Set<Int>?) throws {
        for association in associations(dependent: type) {
            let fk = association.foreignKey
            if let changed, fk.columnIndexes.allSatisfy({ !changed.contains($0) }) { continue }
            let values = fk.columnIndexes.map { columns[$0] }
            if values.contains(.null) {
                guard fk.isOptional else { throw missingPrincipal(association) }
                continue
            }
            guard try exists(association.principal, key: values) else {
                throw WriteError.badRequest("The relationship \(association.name) refers to \(EntityWriter.describe(association.principal, key: values)), which does not exist.")
            }
        }
    }

    /// The error of a dependent written without the principal a required relationship needs.
    func missingPrincipal(_ association: Association) -> WriteError {
        let dependent = association.dependent
        let principal = association.principal
        var message = "\(dependent.name) requires a \(principal.name): the relationship \(association.name) cannot be empty."
        if let navigation = dependent.navigationProperties.first(where: { $0.association === association && $0.target === principal }) {
            message += " Bind one with \"\(navigation.name)\": {\"__metadata\": {\"uri\": \"\(principal.entitySet?.name ?? principal.name)(...)\"}}."
        }
        return .badRequest(message)
    }

    public func exists(_ type: EntityType, key: [SQLValue]) throws -> Bool {
        let sql = "SELECT 1 FROM " + dialect.quote(type.tableName) + " WHERE " + keyCondition(type)
        return try !connection.statement(sql).rows(key).isEmpty
    }

    /// The key column values `record` gives the foreign key of `association` (the principal's key).
    func principalKey(of record: EntityRecord) -> [SQLValue] {
        record.type.keyProperties.map { record.values[$0.columnIndex] }
    }

    /// The dependents of `association` that refer to the principal with this key.
    func dependents(_ association: Association, principalKey: [SQLValue]) throws -> [EntityRecord] {
        let type = association.dependent
        let condition = dialect.equality(columns: association.foreignKey.columns, alias: nil)
        let sql = "SELECT " + type.columnNames.map(dialect.quote).joined(separator: ", ") + " FROM " + dialect.quote(type.tableName)
            + " WHERE " + condition
        return try connection.statement(sql).rows(principalKey).map { EntityRecord(type: type, values: $0) }
    }

    private func dependentCount(_ association: Association, principalKey: [SQLValue]) throws -> Int {
        let condition = dialect.equality(columns: association.foreignKey.columns, alias: nil)
        let sql = "SELECT count(*) FROM " + dialect.quote(association.dependent.tableName) + " WHERE " + condition
        if case .integer(let count)? = try connection.statement(sql).rows(principalKey).first?.first { return Int(count) }
        return 0
    }

    /// Refuses a delete that would leave dependents pointing at nothing. Cascading
    /// relationships are followed, since their dependents go too and may have dependents of
    /// their own that forbid it.
    func checkDeletable(_ record: EntityRecord, depth: Int) throws {
        guard depth < 32 else {
            throw WriteError.conflict("Deleting \(EntityWriter.describe(record)) would cascade more than 32 levels deep.")
        }
        let key = principalKey(of: record)
        for association in model.associations where association.principal === record.type {
            if association.foreignKey.cascadesOnDelete {
                for dependent in try dependents(association, principalKey: key) {
                    try checkDeletable(dependent, depth: depth + 1)
                }
            } else {
                let count = try dependentCount(association, principalKey: key)
                if count > 0 {
                    let dependentName = association.dependent.entitySet?.name ?? association.dependent.name
                    throw WriteError.conflict("\(EntityWriter.describe(record)) cannot be deleted: \(count) \(dependentName) \(count == 1 ? "entity refers" : "entities refer") to it through the relationship \(association.name). Delete them or link them elsewhere first.")
                }
            }
        }
    }
}
