import ArgumentParser

/// `dealer`: browse the car dealer's people, their cars and the cars' maintenance from a terminal.
@main
struct DealerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dealer",
        abstract: "Browse the car dealer's OData service: people, their cars, and the cars' maintenance.",
        discussion: "The service root comes from --url, else DEALER_URL, else \(DealerOptions.defaultURL).",
        subcommands: [PeopleCommand.self, CarsCommand.self, MaintenanceCommand.self, BrowseCommand.self])
}
