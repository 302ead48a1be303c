import EDM
import Foundation
import ODataStore
import PostgresStore
import Testing

/// The PostgreSQL tables derived from the schema: created in an empty database, accepted when
/// they match, and a database that differs refused with each difference named and left as it was.
@Suite(PostgresTestDatabase.enabled) struct PostgresSchemaTests {
    let model = ExpressionFixture.carDealer

    @Test func anEmptyDatabaseGetsTheTablesThenMatches() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let schema = PostgresSchema(model: model)
        #expect(try schema.state(of: connection) == .empty)
        #expect(try schema.prepare(connection) == true)
        #expect(try schema.state(of: connection) == .matching)
        #expect(try schema.prepare(connection) == false)

        // Exact decimals, the identity key, foreign keys with their indexes.
        let types = try connection.rows("""
            SELECT attname, format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = '"Maintenance"'::regclass AND attname IN ('laborHours', 'standardPrice', 'maintenanceID') ORDER BY attname
            """)
        #expect(types == [[.text("laborHours"), .text("numeric(5,2)")], [.text("maintenanceID"), .text("integer")],
                          [.text("standardPrice"), .text("numeric(10,2)")]])
        let identity = try connection.rows("SELECT attidentity FROM pg_attribute WHERE attrelid = '\"Person\"'::regclass AND attname = 'personID'")
        #expect(identity == [[.text("d")]])
        let foreignKeys = try connection.rows("SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conrelid = '\"PersonCar\"'::regclass")
        #expect(foreignKeys == [[.integer(2)]])
        let personCar = model.entitySet(named: "PersonCar")!.entityType
        for association in model.associations where association.dependent === personCar {
            let name = "ix_PersonCar_" + association.foreignKey.columns.joined(separator: "_")
            #expect(try connection.rows("SELECT count(*) FROM pg_indexes WHERE indexname = $1", [.text(name)]) == [[.integer(1)]], "\(name)")
        }
        // Text sorts by code point, as SQLite's BINARY does.
        let collation = try connection.rows("""
            SELECT collname FROM pg_attribute JOIN pg_collation ON pg_collation.oid = attcollation
            WHERE attrelid = '"Person"'::regclass AND attname = 'lastName'
            """)
        #expect(collation == [[.text("C")]])
    }

    @Test func identityKeysAreAssignedAndNeverReused() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        let schema = PostgresSchema(model: model)
        try schema.prepare(connection)
        // Seed rows keep their keys; the sequence then starts past them.
        _ = try connection.query("""
            INSERT INTO "Maintenance" ("maintenanceID", description, category, "laborHours", "standardPrice") VALUES ($1, 'a', 'b', 1, 2)
            """, [.integer(40)])
        try schema.advanceIdentities(on: connection)
        let insert = """
            INSERT INTO "Maintenance" (description, category, "laborHours", "standardPrice") VALUES ('c', 'd', 1.5, 2.25) RETURNING "maintenanceID"
            """
        #expect(try connection.rows(insert) == [[.integer(41)]])
        _ = try connection.query("DELETE FROM \"Maintenance\" WHERE \"maintenanceID\" = $1", [.integer(41)])
        #expect(try connection.rows(insert) == [[.integer(42)]])
    }

    @Test func aDifferentDatabaseIsRefusedWithTheDifferencesAndKept() throws {
        let database = try PostgresTestDatabase()
        let connection = try database.connect()
        try connection.execute("""
            CREATE TABLE "Person" ("personID" INTEGER PRIMARY KEY, "firstName" TEXT NOT NULL, "lastName" INTEGER NOT NULL,
                                   "createDate" BIGINT NOT NULL, "ssn" TEXT NOT NULL, "legacy" TEXT NOT NULL);
            INSERT INTO "Person" VALUES (1, 'Ada', 7, 0, 'x', 'kept');
            """)
        var mismatch: PostgresSchemaMismatch?
        do { try PostgresSchema(model: model).prepare(connection) } catch let error as PostgresSchemaMismatch { mismatch = error }
        let text = mismatch?.description ?? ""
        #expect(text.contains("column \"Person\".\"lastName\" is integer, the schema needs text"), "\(text)")
        #expect(text.contains("column \"Person\".\"ssn\" is NOT NULL, the schema allows null"), "\(text)")
        #expect(text.contains("table \"Person\" has a column \"legacy\""), "\(text)")
        #expect(text.contains("table \"Car\" is missing"), "\(text)")
        #expect(text.contains("Nothing was changed"), "\(text)")
        // Nothing was created, dropped or altered.
        #expect(try connection.rows("SELECT to_regclass('\"Car\"') IS NULL") == [[.integer(1)]])
        #expect(try connection.rows("SELECT legacy FROM \"Person\"") == [[.text("kept")]])
    }
}
