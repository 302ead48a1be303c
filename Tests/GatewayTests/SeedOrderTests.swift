import EDM
import Foundation
import ODataSerialization
import ODataStore
import SQLiteStore
import Testing

/// Seed files in any order: a self-reference whose referrers come first, and a cycle of
/// required relationships, seed whole; a key that no row holds is named with its file, row and
/// relationship, and nothing is seeded.
@Suite struct SeedOrderTests {
    static let schema = """
    <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
      <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="1.0">
        <Schema Namespace="Org" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" xmlns:store="urn:cardealer:storage">
          <EntityType Name="Employee">
            <Key><PropertyRef Name="Id"/></Key>
            <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
            <Property Name="Name" Type="Edm.String" Nullable="false"/>
            <NavigationProperty Name="Manager" Relationship="Org.Employee_Manager" FromRole="Report" ToRole="Manager"/>
            <NavigationProperty Name="Team" Relationship="Org.Employee_Team" FromRole="Member" ToRole="Team"/>
          </EntityType>
          <EntityType Name="Team">
            <Key><PropertyRef Name="Code"/></Key>
            <Property Name="Code" Type="Edm.String" Nullable="false" MaxLength="10"/>
            <NavigationProperty Name="Lead" Relationship="Org.Team_Lead" FromRole="Team" ToRole="Lead"/>
          </EntityType>
          <Association Name="Employee_Manager">
            <End Role="Manager" Type="Org.Employee" Multiplicity="0..1"/>
            <End Role="Report" Type="Org.Employee" Multiplicity="*" store:ForeignKey="ManagerId"/>
          </Association>
          <Association Name="Employee_Team">
            <End Role="Team" Type="Org.Team" Multiplicity="1"/>
            <End Role="Member" Type="Org.Employee" Multiplicity="*" store:ForeignKey="TeamCode"/>
          </Association>
          <Association Name="Team_Lead">
            <End Role="Lead" Type="Org.Employee" Multiplicity="1"/>
            <End Role="Team" Type="Org.Team" Multiplicity="*" store:ForeignKey="LeadId"/>
          </Association>
          <EntityContainer Name="Org" m:IsDefaultEntityContainer="true">
            <EntitySet Name="Employees" EntityType="Org.Employee"/>
            <EntitySet Name="Teams" EntityType="Org.Team"/>
            <AssociationSet Name="Employee_Manager" Association="Org.Employee_Manager">
              <End Role="Manager" EntitySet="Employees"/><End Role="Report" EntitySet="Employees"/>
            </AssociationSet>
            <AssociationSet Name="Employee_Team" Association="Org.Employee_Team">
              <End Role="Team" EntitySet="Teams"/><End Role="Member" EntitySet="Employees"/>
            </AssociationSet>
            <AssociationSet Name="Team_Lead" Association="Org.Team_Lead">
              <End Role="Lead" EntitySet="Employees"/><End Role="Team" EntitySet="Teams"/>
            </AssociationSet>
          </EntityContainer>
        </Schema>
      </edmx:DataServices>
    </edmx:Edmx>
    """

    /// Employees refer to managers further down their file and to teams of the next file, and
    /// teams to their leads: a self-reference and a cycle of required relationships.
    static let employees = """
    [{"Id": 1, "Name": "Ann", "Team": "A", "Manager": 2},
     {"Id": 3, "Name": "Cy", "Team": "B", "Manager": 1},
     {"Id": 2, "Name": "Bo", "Team": "A"}]
    """
    static let teams = #"[{"Code": "A", "Lead": 2}, {"Code": "B", "Lead": 3}]"#

    private static func folder(employees: String, teams: String) throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("seed-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("seed"), withIntermediateDirectories: true)
        try Data(schema.utf8).write(to: folder.appendingPathComponent("Org.edmx"))
        try Data(employees.utf8).write(to: folder.appendingPathComponent("seed/Employees.json"))
        try Data(teams.utf8).write(to: folder.appendingPathComponent("seed/Teams.json"))
        return folder
    }

    @Test func referrersFirstAndCyclesSeedWhole() throws {
        let folder = try Self.folder(employees: Self.employees, teams: Self.teams)
        defer { try? FileManager.default.removeItem(at: folder) }
        let gateway = try TestGateway(schema: folder.appendingPathComponent("Org.edmx"), seed: folder.appendingPathComponent("seed"))
        let manager = try gateway.get("Employees(3)/Manager")
        #expect(manager.status == 200, "\(manager.text.prefix(300))")
        #expect((try manager.d() as? [String: Any])?["Name"] as? String == "Ann")
        let lead = try gateway.get("Teams('B')/Lead")
        #expect((try lead.d() as? [String: Any])?["Name"] as? String == "Cy")
        let team = try gateway.get("Employees(2)/Team")
        #expect((try team.d() as? [String: Any])?["Code"] as? String == "A")
    }

    @Test(arguments: [
        (employees, #"[{"Code": "A", "Lead": 2}, {"Code": "B", "Lead": 7}]"#, "Teams.json, row 2: its relationship Team_Lead (Lead) names Employees 7"),
        (employees.replacingOccurrences(of: #""Manager": 1"#, with: #""Manager": 99"#), teams,
         "Employees.json, row 2: its relationship Employee_Manager (Manager) names Employees 99"),
        (employees.replacingOccurrences(of: #""Team": "B""#, with: #""Team": "Z""#), teams,
         "Employees.json, row 2: its relationship Employee_Team (Team) names Teams 'Z'"),
    ] as [(String, String, String)])
    func aMissingKeyIsNamedAndNothingIsSeeded(employees: String, teams: String, message: String) throws {
        let folder = try Self.folder(employees: employees, teams: teams)
        defer { try? FileManager.default.removeItem(at: folder) }
        let model = try ModelLoader.load(contentsOf: folder.appendingPathComponent("Org.edmx"))
        let database = try Database(path: folder.appendingPathComponent("org.sqlite").path)
        try database.configureForService()
        try SchemaBuilder(model: model, dialect: SQLiteDialect()).createSchema(in: database)
        do {
            try SeedLoader(model: model).load(from: folder.appendingPathComponent("seed"), into: database)
            Issue.record("seeded with a missing key")
        } catch let error as SeedLoader.SeedError {
            #expect(error.message.hasPrefix(message), "\(error.message)")
        }
        #expect(try database.rows("SELECT count(*) FROM \"Employee\"").first?.first == .integer(0), "all or nothing")
        #expect(try database.rows("SELECT count(*) FROM \"Team\"").first?.first == .integer(0))
    }
}
