import ArgumentParser
import Foundation

/// `dealer maintenance <personCarID>`: the work done on one of a person's cars.
struct MaintenanceCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "maintenance",
        abstract: "List the maintenance done on a car, by the PersonCar ID 'dealer cars' shows.")

    @OptionGroup var options: DealerOptions
    @OptionGroup var output: JSONOption

    @Argument(help: "The PersonCar ID: one car as owned by one person.")
    var personCarID: Int32

    func run() async throws {
        try await reportingFailures {
            let (personCar, raw) = try await options.makeService().carWithMaintenance(personCarID)
            if output.json {
                FileHandle.standardOutput.write(raw)
                Terminal.print()
            } else {
                DealerViews.maintenance(of: personCar).forEach { Terminal.print($0) }
            }
        }
    }
}
