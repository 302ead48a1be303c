import EDM
import Foundation
import ODataStore

/// Fills a new database from a seed folder: one `<EntitySet>.json` file per set, each an array
/// of objects keyed by property name, with single-valued navigation properties given as the
/// related entity's key (see SeedData/README.md). Values are read by the same rules as request
/// bodies, facets included. Runs in one transaction: all or nothing.
public struct SeedLoader {
    public let model: EntityModel

    public init(model: EntityModel) { self.model = model }

    public struct SeedError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// - Returns: the number of rows inserted per entity set.
    @discardableResult
    public func load(from folder: URL, into connection: any SQLConnection) throws -> [String: Int] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        for file in files where model.entitySet(named: String(file.dropLast(5))) == nil {
            throw SeedError(message: "seed file \(file) names no entity set of the model")
        }
        var counts: [String: Int] = [:]
        let inserter = RowInserter(connection: connection)
        try connection.transaction {
            // Rows may refer to rows of a later file or further down their own (a
            // self-reference, a cycle): the engine checks foreign keys at the commit, and
            // `checkRelationships` names whatever is missing before that.
            if let deferral = connection.dialect.deferForeignKeyChecks { try connection.execute(deferral) }
            var rowNumbers: [ObjectIdentifier: [[SQLValue]: Int]] = [:]
            for type in model.typesInDependencyOrder {
                guard let set = type.entitySet else { continue }
                let url = folder.appendingPathComponent(set.name + ".json")
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let json: JSONValue
                do {
                    json = try JSONParser.parse(Data(contentsOf: url))
                } catch {
                    throw SeedError(message: "\(set.name).json: \(error)")
                }
                guard case .array(let rows) = json else { throw SeedError(message: "\(set.name).json must be an array of objects") }
                for (index, row) in rows.enumerated() {
                    do {
                        let values = try columns(of: row, type: type)
                        let identity = try inserter.insert(type, columns: values)
                        let key = identity.map { [$0] } ?? type.keyProperties.map { values[$0.columnIndex] ?? .null }
                        rowNumbers[ObjectIdentifier(type), default: [:]][key] = index + 1
                    } catch let error as SeedError {
                        throw SeedError(message: "\(set.name).json, row \(index + 1): \(error.message)")
                    } catch let error as PayloadError {
                        throw SeedError(message: "\(set.name).json, row \(index + 1): \(error.message)")
                    } catch let error as any StoreFailure {
                        throw SeedError(message: "\(set.name).json, row \(index + 1): \(error.message)")
                    }
                }
                counts[set.name] = rows.count
            }
            try checkRelationships(on: connection, rowNumbers: rowNumbers)
        }
        return counts
    }

    /// The first row of each relationship whose foreign key names no row of the principal
    /// set, as an error naming the file, the row, the relationship and the missing key.
    private func checkRelationships(on connection: any SQLConnection, rowNumbers: [ObjectIdentifier: [[SQLValue]: Int]]) throws {
        let dialect = connection.dialect
        for association in model.associations {
            let dependent = association.dependent, principal = association.principal
            guard let dependentSet = dependent.entitySet, let principalSet = principal.entitySet else { continue }
            let keys = dependent.keyProperties.map { dialect.column("d", $0.columnName) }
            let foreign = association.foreignKey.columns.map { dialect.column("d", $0) }
            let matches = zip(association.foreignKey.columns, principal.keyProperties).map { column, key in
                dialect.column("p", key.columnName) + " = " + dialect.column("d", column)
            }
            let sql = "SELECT " + (keys + foreign).joined(separator: ", ") + " FROM " + dialect.quote(dependent.tableName) + " AS d WHERE "
                + foreign.map { $0 + " IS NOT NULL" }.joined(separator: " AND ")
                + " AND NOT EXISTS (SELECT 1 FROM " + dialect.quote(principal.tableName) + " AS p WHERE " + matches.joined(separator: " AND ") + ")"
                + dialect.limitClause(limit: "1", offset: nil)
            guard let row = try connection.rows(sql).first else { continue }
            let key = Array(row.prefix(keys.count)), missing = Array(row.dropFirst(keys.count))
            let navigation = dependent.navigationProperties.first { $0.association === association && !$0.targetHoldsForeignKey }
            let rowText = rowNumbers[ObjectIdentifier(dependent)]?[key].map { "row \($0)" } ?? "the row of key \(Self.text(key))"
            throw SeedError(message: "\(dependentSet.name).json, \(rowText): its relationship \(association.name)"
                + (navigation.map { " (\($0.name))" } ?? "") + " names \(principalSet.name) \(Self.text(missing)), which no seed row holds")
        }
    }

    private static func text(_ values: [SQLValue]) -> String {
        let parts = values.map { value -> String in
            switch value {
            case .null: return "null"
            case .integer(let number): return String(number)
            case .real(let number): return String(number)
            case .text(let text): return "'" + text + "'"
            case .blob(let bytes): return "X'" + bytes.map { String(format: "%02X", $0) }.joined() + "'"
            }
        }
        return parts.count == 1 ? parts[0] : "(" + parts.joined(separator: ", ") + ")"
    }

    private func columns(of row: JSONValue, type: EntityType) throws -> [SQLValue?] {
        guard case .object(let object) = row else { throw SeedError(message: "a row must be an object") }
        var columns: [SQLValue?] = Array(repeating: nil, count: type.columnCount)
        for member in object.members {
            if let property = type.property(named: member.name) {
                columns[property.columnIndex] = SQLValue(try PropertyValueDecoder.decode(member.value, for: property))
            } else if let nav = type.navigationProperty(named: member.name), !nav.isCollection, !nav.targetHoldsForeignKey {
                let keys = nav.target.keyProperties
                for (index, key) in keys.enumerated() {
                    let value: JSONValue
                    if keys.count == 1 {
                        value = member.value
                    } else if case .object(let keyObject) = member.value, let part = keyObject.members.first(where: { $0.name == key.name }) {
                        value = part.value
                    } else {
                        throw SeedError(message: "\(member.name) must be an object with the key \(keys.map(\.name).joined(separator: ", "))")
                    }
                    columns[nav.foreignKey.columnIndexes[index]] = SQLValue(try PropertyValueDecoder.decode(value, for: key))
                }
            } else {
                throw SeedError(message: "\(type.name) has no property or single-valued navigation property '\(member.name)'")
            }
        }
        return columns
    }
}
