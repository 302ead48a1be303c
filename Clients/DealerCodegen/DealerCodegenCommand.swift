import ArgumentParser
import Foundation
import RestConnection

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

    @Option(name: .customLong("api-key"),
            help: ArgumentHelp("An API key for --url, sent as 'Authorization: Bearer KEY' (default: DEALER_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Option(name: .customLong("ca-cert"),
            help: ArgumentHelp("Trust HTTPS servers whose certificate chains to this CA certificate (PEM), for --url.", valueName: "file"))
    var caCert: String?

    @Option(help: ArgumentHelp("Seconds reading --url may take in all.", valueName: "seconds"))
    var timeout: Double = 15

    @Option(name: .customLong("access-level"), help: ArgumentHelp("public, package or internal.", valueName: "level"))
    var accessLevel = "public"

    @Option(name: .customLong("type-prefix"), help: ArgumentHelp("Put before every generated type's name (DC gives DCPerson).", valueName: "prefix"))
    var typePrefix = ""

    func validate() throws {
        if (url == nil) == (file == nil) {
            throw ValidationError("give either --url or --file")
        }
        if let url, MetadataSource.metadataURL(forServiceRoot: url) == nil || RestConnection.serviceRoot(url) == nil {
            throw ValidationError("invalid URL: \(url) (an http or https URL with a host, and a port from 1 to 65535)")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        guard ModelGenerator.Options.accessLevels.contains(accessLevel) else {
            throw ValidationError("--access-level must be one of \(ModelGenerator.Options.accessLevels.joined(separator: ", "))")
        }
        guard typePrefix.isEmpty || (typePrefix.first!.isLetter && typePrefix.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }) else {
            throw ValidationError("--type-prefix must be letters and digits, starting with a letter")
        }
        if let caCert {
            guard FileManager.default.isReadableFile(atPath: caCert) else {
                throw ValidationError("--ca-cert: cannot read \(caCert)")
            }
        }
    }

    func run() async throws {
        let source: MetadataSource
        var connection: RestConnection?
        if let file {
            source = .file(file)
        } else {
            let metadataURL = MetadataSource.metadataURL(forServiceRoot: url!)!
            source = .service(metadataURL)
            let key = apiKey ?? ProcessInfo.processInfo.environment["DEALER_API_KEY"].flatMap { $0.isEmpty ? nil : $0 }
            let trust = caCert.map { ServerTrust.certificateAuthority(URL(fileURLWithPath: $0)) } ?? .system
            connection = RestConnection(baseURL: metadataURL.deletingLastPathComponent(), credentials: key.map(Credentials.bearer),
                                        trust: trust, timeout: timeout)
        }
        do {
            let metadata = try await source.read(through: connection)
            var generator = try ModelGenerator(metadata: metadata, source: source.name)
            generator.options = ModelGenerator.Options(accessLevel: accessLevel, typePrefix: typePrefix)
            let text = try generator.generate()
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
