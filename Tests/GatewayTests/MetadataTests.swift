import CSDL
import EDM
import Foundation
import ODataSerialization
import Testing

/// `$metadata` is an EDMX document that loads back into the same model.
@Suite struct MetadataTests {
    @Test func metadataRoundTrips() throws {
        let gateway = try TestGateway()
        let response = try gateway.get("$metadata", accept: "application/xml")
        #expect(response.status == 200)
        #expect(response.header("Content-Type")?.hasPrefix("application/xml") == true)
        #expect(response.header("DataServiceVersion") == "2.0;")
        // Clients that ask for JSON everywhere still get the document.
        #expect(try gateway.get("$metadata", accept: "application/json").status == 200)

        var document = try CSDLReader.read(data: Data(response.body))
        #expect(document.dataServiceVersion == "2.0")
        let original = gateway.model
        // Service operations are answered by what their storage annotations declare, which
        // stay inside the gateway: their signatures are compared, and the rest loads as a model.
        let operations = document.schemas.flatMap(\.entityContainers).flatMap(\.functionImports)
        #expect(operations.map(\.name) == original.functionImports.map(\.name))
        #expect(operations.map { $0.parameters.map(\.name) } == original.functionImports.map { $0.parameters.map(\.name) })
        for schema in document.schemas.indices {
            for container in document.schemas[schema].entityContainers.indices {
                document.schemas[schema].entityContainers[container].functionImports = []
            }
        }
        let served = try ModelLoader.load(document)
        #expect(served.namespace == "edmexampleModel")
        #expect(served.entitySets.map(\.name) == original.entitySets.map(\.name))
        for type in original.entityTypes {
            let other = try #require(served.entityType(qualifiedName: type.qualifiedName))
            #expect(other.keyProperties.map(\.name) == type.keyProperties.map(\.name))
            #expect(other.properties.map(\.name) == type.properties.map(\.name))
            for (a, b) in zip(type.properties, other.properties) {
                #expect(a.type == b.type && a.isNullable == b.isNullable && a.maxLength == b.maxLength
                        && a.precision == b.precision && a.scale == b.scale, "\(type.name).\(a.name)")
            }
            #expect(other.navigationProperties.map(\.name) == type.navigationProperties.map(\.name))
            for (a, b) in zip(type.navigationProperties, other.navigationProperties) {
                #expect(a.target.name == b.target.name && a.isCollection == b.isCollection, "\(type.name).\(a.name)")
            }
        }
        #expect(served.associations.map(\.name) == original.associations.map(\.name))
        // Storage annotations stay inside the gateway.
        #expect(!response.text.contains("urn:cardealer:storage"))
        #expect(response.text.contains("m:IsDefaultEntityContainer=\"true\""))
        // Identity keys say so, as Entity Framework services do.
        #expect(response.text.contains("xmlns:annotation=\"http://schemas.microsoft.com/ado/2009/02/edm/annotation\""))
        #expect(served.entityType(qualifiedName: "edmexampleModel.Person")?.keyProperties.first?.isStoreGenerated == true)
    }
}
