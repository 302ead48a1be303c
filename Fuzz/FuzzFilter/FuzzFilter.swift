// Feeds `$filter` and `$orderby` text (already percent-decoded, as the URI parser hands it on)
// to ODataURI's ExpressionParser, which parses and binds it against an entity type of
// Schema/CarDealer.edmx or the tests' Inventory.edmx. The first byte picks the type (the
// byte's value modulo eight, in the order the two schemas declare them); the rest is the
// expression.
import EDM
import Foundation
import ODataURI

/// The repository's schema and the tests' second one, which has every simple type.
let models: [EntityModel] = ["Schema/CarDealer.edmx", "Tests/GatewayTests/Fixtures/Inventory.edmx"].map { path in
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let schema = repository.appendingPathComponent(path)
    do { return try ModelLoader.load(contentsOf: schema) } catch { fatalError("cannot load \(schema.path): \(error)") }
}
let types = models.flatMap(\.entityTypes)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let type = types[Int(data[0]) % types.count]
    let text = String(decoding: UnsafeBufferPointer(start: data + 1, count: size - 1), as: UTF8.self)
    _ = try? ExpressionParser.parseFilter(text, for: type)
    _ = try? ExpressionParser.parseOrderBy(text, for: type)
    return 0
}
