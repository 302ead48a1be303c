import EDM
import ODataSerialization
import ODataStore

/// Applies a checked entity body to the store: creates an entity with its bindings and its
/// deep-inserted relatives, or updates one (replace or merge). It runs inside the request's
/// transaction, so a body that fails anywhere, however deep, leaves nothing behind.
struct EntityPersister {
    let writer: any EntityWriting
    /// Finds the entity a binding names.
    let resolve: (EntityReference, NavigationProperty) throws -> EntityRecord
    /// Refuses an entity of this type inlined in the body (deep insert) when the caller may not
    /// create it; the request's own target was checked before the body was read.
    var checkInline: (EntityType) throws -> Void = { _ in }

    // MARK: Create

    /// Creates the entity of `payload`. When it is created through a navigation property of
    /// `parent` (`POST Person(1)/PersonCar`, or inline in a deep insert), it is linked to it.
    func create(_ payload: EntityPayload, from parent: EntityRecord? = nil, along navigation: NavigationProperty? = nil) throws -> EntityRecord {
        let type = payload.entityType
        var columns = [SQLValue?](repeating: nil, count: type.columnCount)
        for property in type.properties where !property.isStoreGenerated {
            // A key the store assigns is the store's: a client's placeholder (often 0) is ignored.
            if let value = payload.values[property.name] { columns[property.columnIndex] = SQLValue(value) }
        }

        // The dependent side of the relationship with the parent holds the link.
        var parentAssociation: Association?
        if let parent, let navigation, navigation.targetHoldsForeignKey {
            parentAssociation = navigation.association
            try assign(parent, to: navigation.association, in: &columns, by: "the request URI")
        }

        // Bindings and inline principals set this entity's foreign keys before the insert;
        // dependents are linked once the entity exists.
        var afterInsert: [(NavigationProperty, [RelatedEntity])] = []
        for item in payload.navigations {
            let nav = item.property
            if nav.targetHoldsForeignKey {
                afterInsert.append((nav, item.relatedEntities))
                continue
            }
            switch item.content {
            case .null:
                guard nav.association !== parentAssociation else {
                    throw PayloadError("Navigation property '\(nav.name)' is set by the request URI; it cannot be null in the body.", propertyName: nav.name)
                }
                guard nav.foreignKey.isOptional else { throw missingRelationship(nav) }
                for index in nav.foreignKey.columnIndexes { columns[index] = .null }
            case .single(let related):
                let principal: EntityRecord
                switch related {
                case .reference(let reference): principal = try resolve(reference, nav)
                case .inline(let inner):
                    try checkInline(inner.entityType)
                    principal = try create(inner)
                }
                try assign(principal, to: nav.association, in: &columns, by: "'\(nav.name)'")
            case .collection:
                // A navigation to a principal is single-valued; the deserializer allows no array.
                throw PayloadError("Navigation property '\(nav.name)' is single-valued.", propertyName: nav.name)
            }
        }

        // Properties left out take their default, or the body must give them.
        for property in type.properties where columns[property.columnIndex] == nil && !property.isStoreGenerated {
            guard let value = try EntityDeserializer.defaultValue(for: property) else { throw missingProperty(property, of: type) }
            columns[property.columnIndex] = SQLValue(value)
        }

        let record = try writer.insert(type, columns: columns)
        for (nav, related) in afterInsert {
            for element in related {
                switch element {
                case .reference(let reference): try writer.link(record, nav, to: try resolve(reference, nav))
                case .inline(let inner):
                    try checkInline(inner.entityType)
                    _ = try create(inner, from: record, along: nav)
                }
            }
        }
        return record
    }

    /// Sets the foreign key of `association` in `columns` to `principal`'s key. A value the
    /// body already gave those columns (an exposed foreign-key property) must agree.
    private func assign(_ principal: EntityRecord, to association: Association, in columns: inout [SQLValue?], by source: String) throws {
        let key = principal.type.keyProperties.map { principal.values[$0.columnIndex] }
        for (index, value) in zip(association.foreignKey.columnIndexes, key) {
            if let given = columns[index], given != value {
                let name = association.dependent.columnNames[index]
                throw PayloadError("'\(name)' in the body contradicts \(source), which links the entity to \(EntityWriter.describe(principal)) through the relationship \(association.name).",
                                   propertyName: name)
            }
            columns[index] = value
        }
    }

    // MARK: Update

    /// Updates `record` from `payload`. A replace (PUT) resets the properties the body leaves
    /// out to their defaults; a merge (MERGE, PATCH) keeps them. Bindings relink; new entities
    /// inline are refused, as OData V2 has no deep update.
    func update(_ record: EntityRecord, with payload: EntityPayload, replace: Bool) throws -> EntityRecord {
        let type = record.type
        var uriKey: [String: EDMValue] = [:]
        for key in type.keyProperties { uriKey[key.name] = record.value(of: key) }
        try payload.checkKey(matches: uriKey)

        var changes: [Int: SQLValue] = [:]
        for property in type.properties where !property.isKey {
            if let value = payload.values[property.name] {
                changes[property.columnIndex] = SQLValue(value)
            } else if replace {
                guard let value = try EntityDeserializer.defaultValue(for: property) else { throw missingProperty(property, of: type) }
                changes[property.columnIndex] = SQLValue(value)
            }
        }

        var unlinks: [NavigationProperty] = []
        var links: [(NavigationProperty, EntityRecord)] = []
        for item in payload.navigations {
            let nav = item.property
            if case .null = item.content {
                if nav.targetHoldsForeignKey {
                    unlinks.append(nav)
                } else {
                    guard nav.foreignKey.isOptional else { throw missingRelationship(nav) }
                    for index in nav.foreignKey.columnIndexes { changes[index] = .null }
                }
                continue
            }
            for element in item.relatedEntities {
                guard case .reference(let reference) = element else {
                    throw PayloadError("Navigation property '\(nav.name)' carries a new \(nav.target.name); deep insert is supported when creating only. POST it to \(nav.target.entitySet?.name ?? nav.target.name) and link it.",
                                       propertyName: nav.name)
                }
                let target = try resolve(reference, nav)
                if nav.targetHoldsForeignKey {
                    links.append((nav, target))
                } else {
                    let key = target.type.keyProperties.map { target.values[$0.columnIndex] }
                    let current = nav.foreignKey.columnIndexes.map { record.values[$0] }
                    if key != current {
                        // Through the writer, which refuses to move a foreign key that is part of the key.
                        links.append((nav, target))
                    }
                }
            }
        }

        let key = type.keyProperties.map { record.values[$0.columnIndex] }
        var updated = try writer.update(record, changes: changes)
        for nav in unlinks { try writer.unlink(updated, nav, from: nil) }
        for (nav, target) in links {
            try writer.link(updated, nav, to: target)
            // Each link may change this row's foreign keys; the next one starts from the row as stored.
            updated = try writer.row(type, key: key) ?? updated
        }
        return try writer.row(type, key: key) ?? updated
    }

    /// Sets one property (`PUT Set(key)/Prop`, `/$value`, or DELETE of it to null).
    func update(_ record: EntityRecord, property: Property, to value: EDMValue) throws -> EntityRecord {
        guard !property.isKey else {
            throw PayloadError("Property '\(property.name)' is part of the key of \(record.type.name) and cannot be changed.", propertyName: property.name)
        }
        return try writer.update(record, changes: [property.columnIndex: SQLValue(value)])
    }

    // MARK: Messages

    private func missingProperty(_ property: Property, of type: EntityType) -> PayloadError {
        var message = "Property '\(property.name)' is missing: it is not nullable and has no default value, so the body must give it."
        if let association = writer.associations(dependent: type).first(where: { $0.foreignKey.columnIndexes.contains(property.columnIndex) }) {
            message += " It holds the relationship \(association.name)."
        }
        return PayloadError(message, propertyName: property.name)
    }

    private func missingRelationship(_ nav: NavigationProperty) -> PayloadError {
        PayloadError("Navigation property '\(nav.name)' cannot be null: the relationship \(nav.association.name) requires a \(nav.target.name).",
                     propertyName: nav.name)
    }
}
