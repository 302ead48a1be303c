import EDM
import Foundation
import ODataSerialization
import ODataStore
import SQLiteStore
import ODataURI

/// Models and SQLite databases for the expression tests: the car-dealer schema with its seed
/// data, and a small schema with one property of every EDM type and hand-made rows.
enum ExpressionFixture {
    static let repositoryRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static let carDealer: EntityModel = {
        try! ModelLoader.load(contentsOf: repositoryRoot.appendingPathComponent("Schema/CarDealer.edmx"))
    }()

    static let allTypes: EntityModel = {
        let url = try! allTypesSchemaFile()
        defer { try? FileManager.default.removeItem(at: url) }
        return try! ModelLoader.load(contentsOf: url)
    }()

    static func type(_ name: String, in model: EntityModel = carDealer) -> EntityType {
        model.entitySet(named: name)!.entityType
    }

    /// A fresh database file with the car-dealer tables, filled from SeedData.
    static func carDealerDatabase() throws -> Database {
        let path = temporaryPath("dealer")
        let database = try Database(path: path)
        try SchemaBuilder(model: carDealer, dialect: SQLiteDialect()).createSchema(in: database)
        try SeedLoader(model: carDealer).load(from: repositoryRoot.appendingPathComponent("SeedData"), into: database)
        removeWhenClosed(path)
        return database
    }

    /// A fresh database file with the all-types tables and `allTypesRows`.
    static func allTypesDatabase() throws -> Database {
        let path = temporaryPath("types")
        let database = try Database(path: path)
        try SchemaBuilder(model: allTypes, dialect: SQLiteDialect()).createSchema(in: database)
        try insertAllTypesRows(into: database, model: allTypes)
        removeWhenClosed(path)
        return database
    }

    /// Inserts the two groups and `allTypesRows` into all-types tables.
    static func insertAllTypesRows(into connection: any SQLConnection, model: EntityModel) throws {
        let inserter = RowInserter(connection: connection)
        let group = type("Groups", in: model)
        for (id, label) in [(1, "red"), (2, "Blue")] {
            try inserter.insert(group, columns: [.integer(Int64(id)), .text(label)])
        }
        let sample = type("Samples", in: model)
        for row in allTypesRows {
            var columns: [SQLValue?] = Array(repeating: nil, count: sample.columnCount)
            for (name, value) in row {
                if name == "Group" {
                    columns[sample.navigationProperty(named: "Group")!.foreignKey.columnIndexes[0]] = SQLValue(value)
                } else {
                    columns[sample.property(named: name)!.columnIndex] = SQLValue(value)
                }
            }
            try inserter.insert(sample, columns: columns)
        }
    }

    /// The all-types schema as a file, for a gateway to load.
    static func allTypesSchemaFile() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("expression-all-types-\(UUID().uuidString).edmx")
        try allTypesSchema.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Unlinks a filled database file: the open connection keeps reading it (the tests only
    /// read from here on), and the file is gone when the connection closes.
    private static func removeWhenClosed(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    private static func temporaryPath(_ stem: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("expression-\(stem)-\(UUID().uuidString).sqlite").path
    }

    /// Milliseconds since the epoch of a UTC calendar time.
    static func ms(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0, _ millisecond: Int = 0) -> Int64 {
        CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second, millisecond: millisecond).millisecondsSinceEpoch
    }

    /// Rows of `Samples`, by property name (and "Group" for the foreign key); absent means null.
    static let allTypesRows: [[String: EDMValue]] = [
        ["id": .integer(1), "name": .string("Alpha"), "flag": .boolean(true), "tiny": .integer(1), "small": .integer(-3),
         "number": .integer(10), "big": .integer(10_000_000_000), "real": .double(2.5), "single": .double(0.5),
         "amount": .decimal("12.50"), "when": .dateTime(ms(2009, 11, 1, 13, 20, 5, 250)),
         "instant": .dateTimeOffset(ms(2009, 11, 1, 22, 0), offsetMinutes: 0), "duration": .time(48_000_000),
         "uid": .guid("6f9619ff-8b86-d011-b42d-00c04fc964ff"), "blob": .binary([0x0A, 0xFF]), "Group": .integer(1)],
        ["id": .integer(2), "name": .string("beta"), "flag": .boolean(false), "tiny": .integer(255), "small": .integer(300),
         "number": .integer(-7), "big": .integer(-2), "real": .double(-2.5), "single": .double(-1.25),
         "amount": .decimal("-0.5"), "when": .dateTime(ms(1969, 12, 31, 23, 59, 59, 500)),
         "instant": .dateTimeOffset(ms(2020, 2, 29, 0, 0), offsetMinutes: 0), "duration": .time(3_723_004),
         "uid": .guid("00000000-0000-0000-0000-000000000001"), "blob": .binary([]), "Group": .integer(2)],
        ["id": .integer(3), "name": .string("  Gamma\t"), "flag": .boolean(true), "number": .integer(0),
         "real": .double(0.49), "amount": .decimal("100"), "when": .dateTime(ms(2000, 2, 29)), "Group": .integer(1)],
        ["id": .integer(4), "name": .string(""), "number": .integer(7), "big": .integer(3), "real": .double(-0.5),
         "amount": .decimal("2.25"), "when": .dateTime(ms(2010, 1, 1, 0, 0, 0, 1))],
        ["id": .integer(5), "name": .string("O'Brien"), "flag": .boolean(false), "number": .integer(2147483647),
         "real": .double(1e300), "amount": .decimal("-12.5"), "duration": .time(0)],
        ["id": .integer(6)],
        ["id": .integer(7), "name": .string("ALPHA"), "number": .integer(-10), "real": .double(3.5), "amount": .decimal("0.125"),
         "Group": .integer(2)],
        ["id": .integer(8), "name": .string("zeta ünïcode ß"), "number": .integer(3), "small": .integer(3), "tiny": .integer(3),
         "real": .double(-3.5), "amount": .decimal("3")],
    ]

    static let allTypesSchema = """
    <?xml version="1.0" encoding="utf-8"?>
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
      <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="1.0">
        <Schema Namespace="Types" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" xmlns:store="urn:cardealer:storage">
          <EntityType Name="Sample">
            <Key><PropertyRef Name="id"/></Key>
            <Property Name="id" Type="Edm.Int32" Nullable="false"/>
            <Property Name="name" Type="Edm.String"/>
            <Property Name="flag" Type="Edm.Boolean"/>
            <Property Name="tiny" Type="Edm.Byte"/>
            <Property Name="small" Type="Edm.Int16"/>
            <Property Name="number" Type="Edm.Int32" store:Column="number_column"/>
            <Property Name="big" Type="Edm.Int64"/>
            <Property Name="real" Type="Edm.Double"/>
            <Property Name="single" Type="Edm.Single"/>
            <Property Name="amount" Type="Edm.Decimal" Precision="10" Scale="3"/>
            <Property Name="when" Type="Edm.DateTime"/>
            <Property Name="instant" Type="Edm.DateTimeOffset"/>
            <Property Name="duration" Type="Edm.Time"/>
            <Property Name="uid" Type="Edm.Guid"/>
            <Property Name="blob" Type="Edm.Binary"/>
            <NavigationProperty Name="Group" Relationship="Types.Sample_Group" FromRole="Sample" ToRole="Group"/>
          </EntityType>
          <EntityType Name="Group" store:Table="Group Table">
            <Key><PropertyRef Name="groupID"/></Key>
            <Property Name="groupID" Type="Edm.Int32" Nullable="false"/>
            <Property Name="label" Type="Edm.String" Nullable="false"/>
            <NavigationProperty Name="Samples" Relationship="Types.Sample_Group" FromRole="Group" ToRole="Sample"/>
          </EntityType>
          <Association Name="Sample_Group">
            <End Role="Group" Type="Types.Group" Multiplicity="0..1"/>
            <End Role="Sample" Type="Types.Sample" Multiplicity="*" store:ForeignKey="groupID"/>
          </Association>
          <EntityContainer Name="TypesContainer" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Samples" EntityType="Types.Sample"/>
            <EntitySet Name="Groups" EntityType="Types.Group"/>
            <AssociationSet Name="Sample_Group" Association="Types.Sample_Group">
              <End Role="Group" EntitySet="Groups"/>
              <End Role="Sample" EntitySet="Samples"/>
            </AssociationSet>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """
}

extension ExpressionFixture {
    /// Keys of the rows of `type` where the translated filter holds, in key order. `asCondition`
    /// chooses `ExpressionTranslator.condition(for:in:)`; otherwise the value form is used,
    /// wrapped in `IS 1` as the query engine does.
    static func keys(where filter: BoundExpression, on type: EntityType, in database: Database,
                     asCondition: Bool) throws -> (keys: [[SQLValue]], sql: String) {
        var context = SQLBuildContext(dialect: SQLiteDialect())
        let condition = asCondition
            ? ExpressionTranslator.condition(for: filter, in: &context)
            : "(" + ExpressionTranslator.sql(for: filter, in: &context) + ") IS 1"
        let keys = type.keyProperties.map { SQLiteDialect().column(context.rootAlias, $0.columnName) }.joined(separator: ", ")
        var sql = "SELECT \(keys) FROM \(SQLiteDialect().quote(type.tableName)) AS \(context.rootAlias)"
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        sql += " WHERE " + condition + " ORDER BY " + keys
        return (try database.rows(sql, context.parameters), sql)
    }

    /// Keys of all rows of `type` in the translated `$orderby` order, ties broken by the key.
    static func orderedKeys(_ items: [OrderByItem], on type: EntityType, in database: Database) throws -> (keys: [[SQLValue]], sql: String) {
        var context = SQLBuildContext(dialect: SQLiteDialect())
        var terms: [String] = []
        for item in items {
            terms.append(ExpressionTranslator.orderKey(for: item.expression, in: &context) + (item.descending ? " DESC" : " ASC"))
        }
        let keys = type.keyProperties.map { SQLiteDialect().column(context.rootAlias, $0.columnName) }
        var sql = "SELECT \(keys.joined(separator: ", ")) FROM \(SQLiteDialect().quote(type.tableName)) AS \(context.rootAlias)"
        if !context.joins.isEmpty { sql += " " + context.joins.joined(separator: " ") }
        sql += " ORDER BY " + (terms + keys.map { $0 + " ASC" }).joined(separator: ", ")
        return (try database.rows(sql, context.parameters), sql)
    }

    /// The SQL with the translator's own constants removed: what is left must hold no quote,
    /// since every value from the request is a parameter.
    static func quotesOutsideConstants(_ sql: String) -> Bool {
        var rest = sql
        for constant in ["''", "'%Y'", "'%m'", "'%d'", "'%H'", "'%M'", "'%S'", "'unixepoch'"] {
            rest = rest.replacingOccurrences(of: constant, with: "")
        }
        return rest.contains("'")
    }
}
