import ArgumentParser

/// `dealer browse`: the blog's three screens, in a plain terminal.
struct BrowseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "browse",
        abstract: "Browse interactively: pick a person, then one of their cars, then see its maintenance.",
        discussion: """
            Type a row number (the # column) or an ID shown to pick, n/p for the next or previous page             of people, /text to search, b to go back, q to quit. A failed request is shown and the             browser stays where it was.
            """)

    @OptionGroup var options: DealerOptions

    @Option(help: "People per page.")
    var pageSize = 10

    func validate() throws {
        if pageSize < 1 { throw ValidationError("--page-size must be at least 1") }
    }

    func run() async throws {
        try await reportingFailures {
            var browser = DealerBrowser(service: options.makeService(), pageSize: pageSize)
            try await browser.run()
        }
    }
}
