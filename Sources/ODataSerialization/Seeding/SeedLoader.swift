import EDM
import Foundation
import ODataStore
import ODataURI

/// Fills a new database from a seed folder: one `<EntitySet>.json` file per set, each an array
/// of objects keyed by property name, with single-valued navigation properties given as the
/// related entity's key (see SeedData/README.md). Runs in one transaction: all or nothing.
public struct SeedLoader {
    public let model: EntityModel

    public init(model: EntityModel) { self.model = model }

    public struct SeedError: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }

    /// - Returns: the number of rows inserted per entity set.
    @discardableResult
    public func load(from folder: URL, into database: Database) throws -> [String: Int] {
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".json") }
        for file in files where model.entitySet(named: String(file.dropLast(5))) == nil {
            throw SeedError(message: "seed file \(file) names no entity set of the model")
        }
        var counts: [String: Int] = [:]
        let inserter = RowInserter(database: database)
        try database.transaction {
            for type in model.typesInDependencyOrder {
                guard let set = type.entitySet else { continue }
                let url = folder.appendingPathComponent(set.name + ".json")
                guard FileManager.default.fileExists(atPath: url.path) else { continue }
                let json = try JSONSerialization.jsonObject(with: Data(contentsOf: url), options: [.fragmentsAllowed])
                guard let rows = json as? [[String: Any]] else {
                    throw SeedError(message: "\(set.name).json must be an array of objects")
                }
                for (index, row) in rows.enumerated() {
                    do {
                        try inserter.insert(type, columns: columns(of: row, type: type))
                    } catch let error as SeedError {
                        throw SeedError(message: "\(set.name).json, row \(index + 1): \(error.message)")
                    } catch let error as SQLiteError {
                        throw SeedError(message: "\(set.name).json, row \(index + 1): \(error.message)")
                    }
                }
                counts[set.name] = rows.count
            }
        }
        return counts
    }

    private func columns(of row: [String: Any], type: EntityType) throws -> [SQLValue?] {
        var columns: [SQLValue?] = Array(repeating: nil, count: type.columnCount)
        for (name, raw) in row {
            if let property = type.property(named: name) {
                columns[property.columnIndex] = SQLValue(try SeedLoader.value(raw, for: property))
            } else if let nav = type.navigationProperty(named: name), !nav.isCollection, !nav.targetHoldsForeignKey {
                let keys = nav.target.keyProperties
                let keyValues: [Any]
                if keys.count == 1 {
                    keyValues = [raw]
                } else if let object = raw as? [String: Any] {
                    keyValues = try keys.map { key in
                        guard let v = object[key.name] else { throw SeedError(message: "\(name) lacks key \(key.name)") }
                        return v
                    }
                } else {
                    throw SeedError(message: "\(name) must be an object of key values")
                }
                for (index, key) in keys.enumerated() {
                    columns[nav.foreignKey.columnIndexes[index]] = SQLValue(try SeedLoader.value(keyValues[index], for: key))
                }
            } else {
                throw SeedError(message: "\(type.name) has no property or single-valued navigation property '\(name)'")
            }
        }
        return columns
    }

    /// Converts a seed JSON value: numbers, strings for Int64 and Decimal, `/Date(ms)/` or ISO text for dates.
    static func value(_ raw: Any, for property: Property) throws -> EDMValue {
        if raw is NSNull { return .null }
        func fail() -> SeedError { SeedError(message: "\(property.name): \(raw) is not a valid \(property.type.name)") }
        switch property.type {
        case .boolean:
            guard let b = raw as? Bool else { throw fail() }
            return .boolean(b)
        case .byte, .sByte, .int16, .int32, .int64:
            if let n = raw as? NSNumber, let i = Int64(exactly: n.doubleValue) { return .integer(i) }
            if let s = raw as? String, let i = Int64(s) { return .integer(i) }
            throw fail()
        case .double, .single:
            guard let n = raw as? NSNumber else { throw fail() }
            return .double(n.doubleValue)
        case .decimal:
            if let s = raw as? String { return .decimal(s) }
            if let n = raw as? NSNumber { return .decimal(n.stringValue) }
            throw fail()
        case .string:
            guard let s = raw as? String else { throw fail() }
            return .string(s)
        case .guid:
            guard let s = raw as? String else { throw fail() }
            return .guid(s.lowercased())
        case .dateTime, .dateTimeOffset:
            guard let s = raw as? String else { throw fail() }
            if s.hasPrefix("/Date("), s.hasSuffix(")/"), let ms = Int64(s.dropFirst(6).dropLast(2)) {
                return property.type == .dateTime ? .dateTime(ms) : .dateTimeOffset(ms, offsetMinutes: 0)
            }
            guard let (civil, offset) = LiteralParser.parseDateTime(s) else { throw fail() }
            let ms = civil.millisecondsSinceEpoch - Int64(offset ?? 0) * 60_000
            return property.type == .dateTime ? .dateTime(ms) : .dateTimeOffset(ms, offsetMinutes: offset ?? 0)
        case .time:
            guard let s = raw as? String, let ms = LiteralParser.parseDuration(s) else { throw fail() }
            return .time(ms)
        case .binary:
            guard let s = raw as? String, let data = Data(base64Encoded: s) else { throw fail() }
            return .binary(Array(data))
        }
    }
}
