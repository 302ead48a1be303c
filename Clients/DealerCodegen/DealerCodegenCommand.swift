import ArgumentParser
import Foundation

/// `dealer-codegen`: typed Swift models from an OData service's `$metadata`.
@main
struct DealerCodegenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dealer-codegen",
        abstract: "Generate Codable Swift models from an OData V2 service's $metadata.",
        discussion: """
            The output is one struct per entity type, an enum of entity-set names, and URI builders \
            from keys. It uses the RestConnection library. The same metadata always gives the same file.
            """)

    @Option(help: "The service root (or its $metadata URL) to read the metadata from.")
    var url: String?

    @Option(help: "An EDMX/CSDL file to read the metadata from.")
    var file: String?

    @Option(name: .shortAndLong, help: "Write the Swift source here instead of to standard output.")
    var output: String?

    func validate() throws {
        if (url == nil) == (file == nil) {
            throw ValidationError("give either --url or --file")
        }
        if let url, MetadataSource.metadataURL(forServiceRoot: url) == nil {
            throw ValidationError("\(url) is not an http(s) URL")
        }
    }

    func run() async throws {
        let source: MetadataSource
        if let file {
            source = .file(file)
        } else {
            source = .service(MetadataSource.metadataURL(forServiceRoot: url!)!)
        }
        do {
            let metadata = try await source.read()
            let text = try ModelGenerator(metadata: metadata, source: source.name).generate()
            if let output {
                do {
                    try Data(text.utf8).write(to: URL(fileURLWithPath: output), options: .atomic)
                } catch {
                    throw ModelGenerator.Failure(description: "cannot write \(output): \((error as NSError).localizedDescription)")
                }
            } else {
                FileHandle.standardOutput.write(Data(text.utf8))
            }
        } catch let failure as ModelGenerator.Failure {
            FileHandle.standardError.write(Data("dealer-codegen: \(failure.description)\n".utf8))
            throw ExitCode.failure
        }
    }
}
