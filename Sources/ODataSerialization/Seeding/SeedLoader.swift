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
                        try inserter.insert(type, columns: columns(of: row, type: type))
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
        }
        return counts
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
