import CSDL
import EDM
import Foundation
import ODataStore
import SQLiteStore
import ODataURI
import Testing

/// Collections that expand only single-valued navigation properties read what they expand in
/// the same statement, by LEFT JOIN, and write it from the row. Each entity must come out as
/// the record path writes it for that entity alone (`Set(key)?$expand=...`).
@Suite struct JoinedExpansionTests {
    /// The entities of a collection, following `__next` links.
    private func collection(_ gateway: TestGateway, _ target: String) throws -> [NSDictionary] {
        var entities: [NSDictionary] = []
        var next: String? = target
        while let current = next {
            let response = try gateway.get(current)
            #expect(response.status == 200, "\(current): \(response.text.prefix(300))")
            let d = try response.d()
            if let wrapped = d as? [String: Any] {
                entities += try #require(wrapped["results"] as? [NSDictionary])
                next = (wrapped["__next"] as? String).map { String($0.dropFirst(gateway.root.count)) }
            } else {
                entities += try #require(d as? [NSDictionary])
                next = nil
            }
        }
        return entities
    }

    /// Every entity of `set?query` equals `Set(key)?options` for its own key.
    private func expectEachAsAlone(_ gateway: TestGateway, _ set: String, _ query: String, options: String) throws {
        let listed = try collection(gateway, set + "?" + query)
        #expect(!listed.isEmpty, "\(set)?\(query)")
        for entity in listed {
            let uri = try #require((entity["__metadata"] as? [String: Any])?["uri"] as? String)
            let alone = try gateway.get(String(uri.dropFirst(gateway.root.count)) + "?" + options)
            #expect(alone.status == 200)
            #expect(try alone.d() as? NSDictionary == entity, "\(uri)?\(options)")
        }
    }

    @Test(arguments: TestGateway.engines) func carDealerChainsFiltersAndSelects(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine)
        try expectEachAsAlone(gateway, "PersonCarMaintenance", "$top=6&$expand=Maintenance", options: "$expand=Maintenance")
        try expectEachAsAlone(gateway, "PersonCarMaintenance", "$top=6&$expand=PersonCar/Car,Maintenance,PersonCar/Person",
                              options: "$expand=PersonCar/Car,Maintenance,PersonCar/Person")
        // The filter and the expansion follow the same navigation: one join serves both.
        try expectEachAsAlone(gateway, "PersonCar", "$filter=Car/make eq 'Ford'&$top=5&$expand=Car,Person", options: "$expand=Car,Person")
        try expectEachAsAlone(gateway, "PersonCarMaintenance", "$top=3&$expand=PersonCar/Car&$select=cost,PersonCar/Car/make",
                              options: "$expand=PersonCar/Car&$select=cost,PersonCar/Car/make")
        try expectEachAsAlone(gateway, "PersonCarMaintenance", "$orderby=cost desc&$top=4&$inlinecount=allpages&$expand=Maintenance",
                              options: "$expand=Maintenance")
    }

    /// Ordering by the expanded entity's property uses the same join, paging with keyset tokens
    /// keeps it, and a navigation path as the collection joins from its scope.
    @Test(arguments: TestGateway.engines) func orderingPagingAndNavigationPaths(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine) { $0.defaultPageSize = 3 }
        try expectEachAsAlone(gateway, "PersonCarMaintenance", "$orderby=Maintenance/category desc,cost&$top=10&$expand=Maintenance,PersonCar",
                              options: "$expand=Maintenance,PersonCar")
        try expectEachAsAlone(gateway, "Person(1)/PersonCar", "$expand=Car", options: "$expand=Car")
        let ordered = try collection(gateway, "PersonCarMaintenance?$orderby=Maintenance/category&$top=10&$expand=Maintenance")
        let categories = ordered.compactMap { ($0["Maintenance"] as? [String: Any])?["category"] as? String }
        #expect(categories.count == ordered.count && categories == categories.sorted(), "\(categories)")
    }

    /// Only navigations that follow a foreign key to a primary key are joined: the other end of
    /// a one-to-zero-or-one holds the key, which SQLite does not keep unique, so a join could
    /// repeat the source entity; that expansion is read a statement per level instead.
    @Test func onlyForeignKeyToPrimaryKeyIsJoined() throws {
        let edmx = """
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
          <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="1.0">
            <Schema Namespace="Registry" xmlns="http://schemas.microsoft.com/ado/2008/09/edm" xmlns:store="urn:cardealer:storage">
              <EntityType Name="Citizen">
                <Key><PropertyRef Name="Id"/></Key>
                <Property Name="Id" Type="Edm.Int32" Nullable="false"/>
                <NavigationProperty Name="Passport" Relationship="Registry.CitizenPassport" FromRole="Citizen" ToRole="Passport"/>
              </EntityType>
              <EntityType Name="Passport">
                <Key><PropertyRef Name="Number"/></Key>
                <Property Name="Number" Type="Edm.Int32" Nullable="false"/>
                <NavigationProperty Name="Holder" Relationship="Registry.CitizenPassport" FromRole="Passport" ToRole="Citizen"/>
              </EntityType>
              <Association Name="CitizenPassport">
                <End Role="Citizen" Type="Registry.Citizen" Multiplicity="1"/>
                <End Role="Passport" Type="Registry.Passport" Multiplicity="0..1" store:ForeignKey="citizen_id"/>
              </Association>
              <EntityContainer Name="Registry" m:IsDefaultEntityContainer="true">
                <EntitySet Name="Citizens" EntityType="Registry.Citizen"/>
                <EntitySet Name="Passports" EntityType="Registry.Passport"/>
                <AssociationSet Name="CitizenPassport" Association="Registry.CitizenPassport">
                  <End Role="Citizen" EntitySet="Citizens"/>
                  <End Role="Passport" EntitySet="Passports"/>
                </AssociationSet>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """
        let model = try ModelLoader.load(CSDLReader.read(data: Data(edmx.utf8)))
        let citizen = try #require(model.entitySet(named: "Citizens")).entityType
        let passport = try #require(model.entitySet(named: "Passports")).entityType
        let toPassport = try #require(citizen.navigationProperty(named: "Passport"))
        let toHolder = try #require(passport.navigationProperty(named: "Holder"))
        #expect(!toPassport.isCollection && toPassport.targetHoldsForeignKey)
        #expect(!JoinedExpansions.canJoin([ExpandNode(navigation: toPassport)]))
        #expect(JoinedExpansions.canJoin([ExpandNode(navigation: toHolder)]))
        #expect(!JoinedExpansions.canJoin([ExpandNode(navigation: toHolder, children: [ExpandNode(navigation: toPassport)])]))
    }

    /// A second schema: a composite foreign key, an optional end that joins to nothing (null),
    /// every simple type, and server paging of 2 with keyset tokens.
    @Test(arguments: TestGateway.engines) func compositeKeysMissingTargetsAndPaging(engine: TestGateway.Engine) throws {
        let gateway = try TestGateway(engine: engine, schema: TestGateway.fixtures.appendingPathComponent("Inventory.edmx"),
                                      seed: TestGateway.fixtures.appendingPathComponent("InventorySeed"))
        try expectEachAsAlone(gateway, "Items", "$expand=Warehouse", options: "$expand=Warehouse")
        try expectEachAsAlone(gateway, "Notes", "$expand=Item/Warehouse", options: "$expand=Item/Warehouse")
        let orphan = try #require(try collection(gateway, "Items?$filter=Label eq 'Orphan'&$expand=Warehouse").first)
        #expect(orphan["Warehouse"] is NSNull, "no warehouse: null, not an empty entity")
    }
}
