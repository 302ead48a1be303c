// Feeds request bodies to ODataSerialization's JSONParser and, when they parse, to the
// EntityDeserializer as an entity of each type of Schema/CarDealer.edmx and of the tests'
// Inventory.edmx (deep inserts, links and all), as POST, PUT and MERGE bodies are read.
import EDM
import Foundation
import ODataSerialization

/// The repository's schema and the tests' second one, which has every simple type.
let models: [EntityModel] = ["Schema/CarDealer.edmx", "Tests/GatewayTests/Fixtures/Inventory.edmx"].map { path in
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let schema = repository.appendingPathComponent(path)
    do { return try ModelLoader.load(contentsOf: schema) } catch { fatalError("cannot load \(schema.path): \(error)") }
}
let types = models.flatMap(\.entityTypes)
let deserializer = EntityDeserializer(serviceRoot: "http://localhost:8080/CarDealer.svc/")

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let body = Array(UnsafeBufferPointer(start: data, count: size))
    guard let json = try? JSONParser.parse(body) else { return 0 }
    for type in types {
        _ = try? deserializer.entity(from: json, of: type)
    }
    return 0
}
