import CSDL
import Foundation

/// From `$metadata` (EDMX/CSDL) to Swift source. The same document and source name always
/// give the same text, byte for byte.
struct ModelGenerator {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// How the generated declarations look.
    struct Options {
        /// The access level of every declaration: `public`, `package` or `internal`.
        var accessLevel = "public"
        /// Put before every type's name, for apps that would otherwise clash (`DC` gives `DCPerson`).
        var typePrefix = ""

        static let accessLevels = ["public", "package", "internal"]
    }

    var document: CSDLDocument
    /// Where the document came from, for the header comment: a path or a URL.
    var source: String
    var options = Options()
    /// `<Documentation>` texts by `Namespace.Type` and `Namespace.Type/Property`.
    var documentation: [String: String] = [:]

    init(metadata: Data, source: String) throws {
        do {
            document = try CSDLReader.read(data: metadata)
        } catch let error as CSDLReadError {
            throw Failure(description: "\(source) is not usable metadata: \(error)")
        }
        documentation = DocumentationReader.read(metadata)
        self.source = source
    }

    init(document: CSDLDocument, source: String) {
        self.document = document
        self.source = source
    }

    func generate() throws -> String {
        let schema = ModelSchema(document: document, typePrefix: options.typePrefix)
        guard !schema.entityTypes.isEmpty else {
            throw Failure(description: "\(source) declares no entity types")
        }
        return SwiftModelWriter(schema: schema, source: source, accessLevel: options.accessLevel,
                                documentation: documentation).write()
    }
}
