import EDM
import Foundation
import ODataStore
import SQLiteStore
import Testing

/// What an engine provides under the storage interface (`SQLConnection`, `SQLStatement`,
/// `SQLDialect`, `StoreFailure`), through SQLite's implementation: statements found by their
/// text, schema introspection and DDL, identity keys returned by the insert, and constraint
/// violations told by kind, which the writer's 409 messages rely on.
@Suite struct StorageInterfaceTests {
    let gateway: TestGateway

    init() throws { gateway = try TestGateway() }

    private func type(_ set: String) throws -> EntityType {
        try #require(gateway.model.entitySet(named: set)).entityType
    }

    /// The connection keeps one prepared statement per SQL text, whichever way it is asked.
    @Test func aConnectionFindsItsStatementByTheText() throws {
        let database: any SQLConnection = try gateway.openDatabase()
        #expect(StatementKey("SELECT 1") == StatementKey("SELECT " + "1"))
        let first = try database.statement(StatementKey("SELECT 1"))
        #expect(try database.statement("SELECT 1") === first)
        #expect(try database.statement("SELECT 2") !== first)
        #expect(try database.rows("SELECT 1 + ?", [.integer(2)]) == [[.integer(3)]])
    }

    /// A new database has no tables; the builder creates them in the connection's dialect, and
    /// introspection sees them.
    @Test func schemaIntrospectionAndDDLGoThroughTheConnection() throws {
        let path = gateway.directory.appendingPathComponent("empty.sqlite").path
        let database: any SQLConnection = try Database(path: path)
        let builder = SchemaBuilder(model: gateway.model, dialect: database.dialect)
        #expect(try !database.tableExists("Person"))
        #expect(try builder.isEmpty(database))
        try builder.createSchema(in: database)
        #expect(try database.tableExists("Person"))
        #expect(try !builder.isEmpty(database))
        #expect(builder.statements.contains { $0.contains(database.dialect.identityKeyColumn(.int32)) })
    }

    /// An identity key is the engine's to assign, and the insert returns it (`RETURNING`); a
    /// type whose key the caller gives returns none.
    @Test func anInsertReturnsTheIdentityKeyItWasAssigned() throws {
        let database = try gateway.openDatabase()
        let person = try type("Person")
        let inserter = RowInserter(connection: database)
        let assigned = try inserter.insert(person, columns: [nil, .text("Ada"), .text("Lovelace"), .null, .integer(0)])
        guard case .integer(let key)? = assigned else {
            Issue.record("no identity key came back: \(String(describing: assigned))")
            return
        }
        let stored = try EntityWriter(connection: database, model: gateway.model).row(person, key: [.integer(key)])
        #expect(stored?.values[2] == .text("Lovelace"))
        let next = try inserter.insert(person, columns: [nil, .text("Charles"), .text("Babbage"), .null, .integer(0)])
        #expect(next == .integer(key + 1))
    }

    /// The engine's constraint errors reach the writer as `StoreFailure`s of a kind: a key
    /// taken, a relationship broken.
    @Test func constraintViolationsAreToldByKind() throws {
        let database = try gateway.openDatabase()
        try database.configureForService()
        let inserter = RowInserter(connection: database)
        let person = try type("Person")
        let taken = #expect(throws: (any Error).self) {
            try inserter.insert(person, columns: [.integer(1), .text("Again"), .text("One"), .null, .integer(0)])
        }
        #expect((taken as? any StoreFailure)?.violatedConstraint == .uniqueKey, "\(String(describing: taken))")

        let personCar = try type("PersonCar")
        var columns = [SQLValue?](repeating: nil, count: personCar.columnCount)
        columns[1] = .integer(0)
        for navigation in personCar.navigationProperties where !navigation.isCollection {
            for index in navigation.foreignKey.columnIndexes { columns[index] = .integer(999_999) }
        }
        let broken = #expect(throws: (any Error).self) { try inserter.insert(personCar, columns: columns) }
        let failure = broken as? any StoreFailure
        #expect(failure?.violatedConstraint == .foreignKey, "\(String(describing: broken))")
        #expect(failure?.isConstraintViolation == true && failure?.isBusy == false)
    }
}
