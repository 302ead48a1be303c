// Feeds request targets to ODataURI's UriParser, the way the service does: each input line is
// `path?query` below the service root, parsed against Schema/CarDealer.edmx and the tests'
// Inventory.edmx. The lines also go through a fresh ParseCache per model, whose answers must
// agree with the parser's: a cache that accepted a target the parser rejects (or the reverse)
// would serve a wrong answer, so that is reported as a crash. A line that is not UTF-8 must be
// refused by the cache, whatever the parser makes of its repaired text.
import EDM
import Foundation
import ODataURI

/// The repository's schema and the tests' second one, which has every simple type.
let models: [EntityModel] = ["Schema/CarDealer.edmx", "Tests/GatewayTests/Fixtures/Inventory.edmx"].map { path in
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    let schema = repository.appendingPathComponent(path)
    do { return try ModelLoader.load(contentsOf: schema) } catch { fatalError("cannot load \(schema.path): \(error)") }
}
let parsers = models.map { UriParser(model: $0) }

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let lines = UnsafeBufferPointer(start: data, count: size).split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
    for parser in parsers {
        // A small cache, so that a run of lines fills it and makes it evict.
        let cache = ParseCache<Void>(capacity: 4, longestTarget: 256)
        for line in lines {
            let target = String(decoding: line, as: UTF8.self)
            let queryStart = target.utf8.firstIndex(of: UInt8(ascii: "?"))
            let path = target[..<(queryStart ?? target.endIndex)]
            let query = queryStart.map { target[target.utf8.index(after: $0)...] } ?? ""
            let parse = { () throws(URIError) in try parser.parse(path: path, query: query) }
            let direct = Result(catching: parse)
            let bytes = Array(line)
            let cached = Result { () throws(URIError) in
                try cache.entry(for: bytes.span, text: { target }, parse: parse, derive: { _ in }).info
            }
            // The parser takes text, repaired where the bytes are not UTF-8; the cache sees the
            // bytes the client sent and refuses those (a 400), as the service does.
            let isUTF8 = String(validating: line, as: UTF8.self) != nil
            switch (direct, cached) {
            case (_, .failure) where !isUTF8:
                break
            case (_, .success) where !isUTF8:
                fatalError("the cache accepted '\(target)', whose bytes are not UTF-8")
            case (.success, .failure(let error)):
                fatalError("the cache rejected '\(target)', which parses: \(error)")
            case (.failure(let error), .success):
                fatalError("the cache accepted '\(target)', which the parser rejects: \(error)")
            default:
                break
            }
        }
    }
    return 0
}
