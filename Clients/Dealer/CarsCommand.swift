import ArgumentParser
import Foundation

/// `dealer cars <personID>`: a person's cars, by the blog's expand.
struct CarsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cars",
        abstract: "List a person's cars, using Person(id)?$expand=PersonCar,PersonCar/Car.")

    @OptionGroup var options: DealerOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The person's ID, as 'dealer people' shows it.")
    var personID: Int32

    func run() async throws {
        try await reportingFailures {
            let (person, raw) = try await options.makeService().personWithCars(personID)
            if output.json {
                FileHandle.standardOutput.write(raw)
                Terminal.print()
            } else {
                DealerViews.cars(of: person).forEach { Terminal.print($0) }
            }
        }
    }
}
