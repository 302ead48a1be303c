import ArgumentParser

/// `dealer`: browse the car dealer's people, their cars and the cars' maintenance from a terminal.
@main
struct DealerCommand: AsyncParsableCommand {
    static let version = "0.3.0"

    static let configuration = CommandConfiguration(
        commandName: "dealer",
        abstract: "Browse the car dealer's OData service: people, their cars, and the cars' maintenance.",
        discussion: """
            The service root comes from --url, else DEALER_URL, else \(DealerOptions.defaultURL). \
            The API key comes from --api-key, else DEALER_API_KEY. --url, --api-key, --ca-cert and \
            --timeout may come before the command too.
            """,
        version: version,
        subcommands: [PeopleCommand.self, CarsCommand.self, MaintenanceCommand.self, BrowseCommand.self])

    static func main() async {
        let commands = Set(configuration.subcommands.compactMap { $0.configuration.commandName })
        await main(DealerOptions.hoisting(Array(CommandLine.arguments.dropFirst()), commands: commands))
    }
}
