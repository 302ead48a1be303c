/// A schema made to trip a code generator: Swift keywords and clashing names as properties,
/// a type named like a Foundation type, a self-referencing to-one navigation property, a derived
/// type, a composite key of Int64, String and DateTime, a type without an entity set, Edm.Time,
/// DefaultValues that become initializer defaults, and Documentation that becomes doc comments.
enum EdgeSchema {
    static let edmx = #"""
<?xml version="1.0" encoding="utf-8"?>
<edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx">
  <edmx:DataServices xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata" m:DataServiceVersion="2.0">
    <Schema Namespace="Edge.Cases" Alias="Self" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
      <EntityType Name="Employee">
        <Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Guid" Nullable="false"/>
        <Property Name="class" Type="Edm.String" Nullable="false"/>
        <Property Name="default" Type="Edm.Int32" Nullable="true"/>
        <Property Name="uri" Type="Edm.String" Nullable="true"/>
        <Property Name="Name" Type="Edm.String" Nullable="false"/>
        <Property Name="name" Type="Edm.String" Nullable="true"/>
        <Property Name="URLString" Type="Edm.String" Nullable="true"/>
        <Property Name="first-day" Type="Edm.DateTime" Nullable="true"/>
        <Property Name="Location" Type="Edm.Geography" Nullable="true"/>
        <Property Name="ShiftStart" Type="Edm.Time" Nullable="true" DefaultValue="PT9H30M"/>
        <Property Name="Grade" Type="Edm.Int32" Nullable="true" DefaultValue="3"/>
        <Property Name="Rate" Type="Edm.Decimal" Nullable="true" DefaultValue="12.50"/>
        <Property Name="Title" Type="Edm.String" Nullable="true" DefaultValue="New &quot;hire&quot;"/>
        <NavigationProperty Name="Manager" Relationship="Self.Management" FromRole="Report" ToRole="Manager"/>
        <NavigationProperty Name="Reports" Relationship="Self.Management" FromRole="Manager" ToRole="Report"/>
      </EntityType>
      <EntityType Name="Contractor" BaseType="Self.Employee">
        <Property Name="Agency" Type="Edm.String" Nullable="false"/>
      </EntityType>
      <EntityType Name="Date">
        <Documentation><Summary>A day that matters.</Summary><LongDescription>Kept by year, label and day.</LongDescription></Documentation>
        <Key><PropertyRef Name="Year"/><PropertyRef Name="Label"/><PropertyRef Name="Day"/></Key>
        <Property Name="Year" Type="Edm.Int64" Nullable="false"/>
        <Property Name="Label" Type="Edm.String" Nullable="false">
          <Documentation><Summary>What the day is called; */ cannot end this comment.</Summary></Documentation>
        </Property>
        <Property Name="Day" Type="Edm.DateTime" Nullable="false"/>
      </EntityType>
      <EntityType Name="Orphan">
        <Key><PropertyRef Name="Code"/></Key>
        <Property Name="Code" Type="Edm.Time" Nullable="false"/>
      </EntityType>
      <Association Name="Management">
        <End Role="Manager" Type="Self.Employee" Multiplicity="0..1"/>
        <End Role="Report" Type="Self.Employee" Multiplicity="*"/>
      </Association>
      <Association Name="Mentoring">
        <End Role="Mentor" Type="Edge.Cases.Employee" Multiplicity="0..1"/>
        <End Role="Mentee" Type="Edge.Cases.Employee" Multiplicity="0..1"/>
      </Association>
      <EntityContainer Name="EdgeContainer" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Employees" EntityType="Self.Employee"/>
        <EntitySet Name="Dates" EntityType="Edge.Cases.Date"/>
        <AssociationSet Name="Management" Association="Self.Management">
          <End Role="Manager" EntitySet="Employees"/>
          <End Role="Report" EntitySet="Employees"/>
        </AssociationSet>
      </EntityContainer>
    </Schema>
  </edmx:DataServices>
</edmx:Edmx>
"""#
}
