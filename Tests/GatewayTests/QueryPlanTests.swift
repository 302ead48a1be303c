import CSDL
import EDM
import Foundation
@testable import ODataStore
@testable import SQLiteStore
import ODataURI
import Testing

/// What SQL the reader runs: a bounded number of statements for `$expand`, whatever the row
/// count, and plans that use indexes for keys, navigation and foreign keys.
@Suite struct QueryPlanTests {
    let gateway: TestGateway
    let database: Database
    let parser: UriParser
    /// The SQL of every statement `database` executed.
    private let executed = StatementLog()

    init() throws {
        gateway = try TestGateway()
        database = try gateway.openDatabase(trace: { [executed] in executed.statements.append($0) })
        parser = UriParser(model: gateway.model)
    }

    private func path(_ text: String) throws -> (ResourcePath, QueryOptions) {
        let parts = text.split(separator: "?", maxSplits: 1)
        let info = try parser.parse(path: parts[0], query: parts.count > 1 ? parts[1] : "")
        switch info.resource {
        case .entity(let path), .entityCollection(let path): return (path, info.options)
        default: throw TestFailure("not an entity path: \(text)")
        }
    }

    /// Runs `body` and returns the SQL of every statement it executed.
    private func statements(_ body: () throws -> Void) rethrows -> [String] {
        let start = executed.statements.count
        try body()
        return Array(executed.statements[start...])
    }

    @Test func expandRunsOneStatementPerLevelWhateverTheRowCount() throws {
        let reader = EntityReader(connection: database)
        for top in [1, 10, 60] {
            let (path, options) = try path("Person?$top=\(top)&$expand=PersonCar/Car,PersonCar/PersonCarMaintenance/Maintenance")
            let sql = try statements {
                let page = try reader.page(EntityQuery(path: path, options: options, pageSize: nil))
                #expect(page.entities.count == top)
                try reader.expand(page.entities, options.expand)
            }
            // Person, PersonCar, Car, and PersonCarMaintenance joined with its Maintenance.
            #expect(sql.count == 4, "top \(top): \(sql)")
        }
    }

    /// Single-valued expansions below a level come in that level's statement, by LEFT JOIN.
    @Test func singleValuedExpansionsBelowALevelAreJoinedIntoIt() throws {
        let reader = EntityReader(connection: database)
        for target in ["Person(1)?$expand=PersonCar,PersonCar/Car", "Person?$top=5&$expand=PersonCar/Car"] {
            let (path, options) = try path(target)
            var entities: EntityCursor?
            let sql = try statements {
                entities = try reader.page(EntityQuery(path: path, options: options, pageSize: nil)).entities
                try reader.expand(entities!, options.expand)
            }
            #expect(sql.count == 2, "\(target): \(sql)")
            #expect(sql.last?.contains("LEFT JOIN \"Car\"") == true, "\(target): \(sql)")
            let toCar = try #require(gateway.model.entitySet(named: "PersonCar")?.entityType.navigationProperty(named: "Car"))
            var personCars = 0
            try #require(entities).forEach { person in
                guard case .lent(let related)? = person.children(for: person.type.navigationProperty(named: "PersonCar")!) else { return }
                try related.forEach { personCar in
                    personCars += 1
                    guard case .single(let car?)? = personCar.children(for: toCar) else {
                        Issue.record("\(target): a PersonCar without its Car")
                        return
                    }
                    #expect(car.record.keyColumnValues == toCar.foreignKey.columnIndexes.map { personCar.record.values[$0] },
                            "the Car its foreign key names")
                }
            }
            #expect(personCars > 0)
        }
    }

    @Test func oneSourceEntityExpandsByEqualityManyByAKeyList() throws {
        let reader = EntityReader(connection: database)
        for (target, keyLists) in [("Person(1)?$expand=PersonCar", 0), ("Person?$filter=personID%20le%202&$expand=PersonCar", 1)] {
            let (path, options) = try path(target)
            let sql = try statements {
                let page = try reader.page(EntityQuery(path: path, options: options, pageSize: nil))
                try reader.expand(page.entities, options.expand)
            }
            #expect(sql.filter { $0.contains("json_each") }.count == keyLists, "\(target): \(sql)")
        }
    }

    /// Single-valued expansions are joined into the page's one statement, and the joins seek
    /// by key rather than scan.
    @Test func joinedExpansionsAreOneStatementThatSeeks() throws {
        let reader = EntityReader(connection: database)
        let (path, options) = try path("PersonCarMaintenance?$filter=PersonCar/Car/make%20eq%20'Ford'&$top=50&$expand=Maintenance,PersonCar/Person")
        var query = EntityQuery(path: path, options: options, pageSize: nil)
        query.joinedExpand = options.expand
        var rows = 0
        let sql = try statements { _ = try reader.forEachRow(query) { _ in rows += 1 } }
        #expect(rows > 0)
        #expect(sql.count == 1, "\(sql)")
        let steps = try plan(try #require(sql.first))
        #expect(steps.filter { $0.hasPrefix("SCAN") }.map { $0.split(separator: " ")[1] } == ["t0"], "only the page itself is scanned: \(steps)")
    }

    /// `store:Indexed="firstName"` on Person.lastName indexes (lastName, firstName): the search
    /// by last name in first-name order reads the index in order, with no sort (a sort built a
    /// temporary b-tree for every request), and its count uses the same index.
    @Test func aSearchInTheOrderOfAnIndexNeedsNoSort() throws {
        let columns = try database.rows("SELECT name FROM pragma_index_info('ix_Person_lastName_firstName') ORDER BY seqno")
        #expect(columns == [[.text("lastName")], [.text("firstName")]])

        let reader = EntityReader(connection: database)
        let (path, options) = try path("Person?$filter=lastName%20eq%20'Samson'&$orderby=firstName&$top=20&$inlinecount=allpages")
        let query = EntityQuery(path: path, options: options, pageSize: 50)
        var names: [String] = []
        let sql = try statements {
            _ = try reader.forEachRow(query) { row in
                if case .string(let name) = row.record.value(of: row.type.property(named: "firstName")!) { names.append(name) }
            }
            _ = try reader.count(query, applyTopSkip: false)
        }
        #expect(!names.isEmpty && names == names.sorted(), "\(names)")
        #expect(sql.count == 2, "\(sql)")
        for statement in sql {
            let steps = try plan(statement)
            #expect(!steps.contains { $0.contains("TEMP B-TREE") }, "\(statement) -> \(steps)")
            #expect(steps.contains { $0.contains("ix_Person_lastName_firstName") }, "\(statement) -> \(steps)")
        }
    }

    /// An index may only name other properties of the same type.
    @Test func anIndexNamingAnUnknownPropertyIsRefused() throws {
        let edmx = """
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
          <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="1.0">
            <Schema Namespace="Registry" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" xmlns:store="urn:cardealer:storage">
              <EntityType Name="Citizen">
                <Key><PropertyRef Name="Id"/></Key>
                <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Surname" Type="Edm.String" store:Indexed="GivenName"/>
              </EntityType>
              <EntityContainer Name="Registry" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Citizens" EntityType="Registry.Citizen"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """
        #expect(throws: ModelError.self) { try ModelLoader.load(CSDLReader.read(data: Data(edmx.utf8))) }
        let withName = edmx.replacingOccurrences(of: "store:Indexed=\"GivenName\"/>",
                                                  with: "store:Indexed=\"GivenName\"/><Property Name=\"GivenName\" Type=\"Edm.String\"/>")
        let model = try ModelLoader.load(CSDLReader.read(data: Data(withName.utf8)))
        let citizen = try #require(model.entitySet(named: "Citizens")).entityType
        #expect(SchemaBuilder(model: model, dialect: SQLiteDialect()).statements.contains {
            $0.contains("\"ix_Citizen_Surname_GivenName\" ON \"Citizen\" (\"Surname\", \"GivenName\")")
        }, "\(SchemaBuilder(model: model, dialect: SQLiteDialect()).statements)")
        #expect(citizen.property(named: "Surname")?.indexedWith == ["GivenName"])
    }

    private func plan(_ sql: String) throws -> [String] {
        try database.rows("EXPLAIN QUERY PLAN " + sql, Array(repeating: .text("[1]"), count: sql.filter { $0 == "?" }.count))
            .map { row in row.compactMap { if case .text(let t) = $0 { return t } else { return nil } }.joined(separator: " ") }
    }

    @Test(arguments: [
        "Person(1)",
        "Person(1)/PersonCar",
        "Person(1)/PersonCar(2)/Car",
        "PersonCar(1)/PersonCarMaintenance",
        "PersonCarMaintenance(3)/PersonCar/Person",
        "Person(1)?$expand=PersonCar/Car,PersonCar/PersonCarMaintenance/Maintenance",
        "Car(2)?$expand=PersonCar/Person",
        "Person?$filter=lastName%20eq%20'Samson'&$expand=PersonCar/Car",
        "Person?$filter=lastName%20eq%20'Samson'",
        "Car(2)/PersonCar?$filter=Person/lastName%20eq%20'Samson'",
    ])
    func keysNavigationAndForeignKeysNeverScan(target: String) throws {
        let reader = EntityReader(connection: database)
        let (path, options) = try path(target)
        let sql = try statements {
            let page = try reader.page(EntityQuery(path: path, options: options, pageSize: nil))
            try reader.expand(page.entities, options.expand)
        }
        #expect(!sql.isEmpty)
        for statement in sql {
            let steps = try plan(statement)
            let scans = steps.filter { $0.hasPrefix("SCAN") && !$0.contains("json_each") && !$0.contains("CONSTANT ROW") }
            #expect(scans.isEmpty, "\(target): \(statement) -> \(steps)")
        }
    }
}

private final class StatementLog {
    var statements: [String] = []
}
