import CSDL
import Foundation

/// From `$metadata` (EDMX/CSDL) to Swift source. The same document and source name always
/// give the same text, byte for byte.
struct ModelGenerator {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    var document: CSDLDocument
    /// Where the document came from, for the header comment: a path or a URL.
    var source: String

    init(metadata: Data, source: String) throws {
        do {
            document = try CSDLReader.read(data: metadata)
        } catch let error as CSDLReadError {
            throw Failure(description: "\(source) is not usable metadata: \(error)")
        }
        self.source = source
    }

    init(document: CSDLDocument, source: String) {
        self.document = document
        self.source = source
    }

    func generate() throws -> String {
        let schema = ModelSchema(document: document)
        guard !schema.entityTypes.isEmpty else {
            throw Failure(description: "\(source) declares no entity types")
        }
        return SwiftModelWriter(schema: schema, source: source).write()
    }
}
