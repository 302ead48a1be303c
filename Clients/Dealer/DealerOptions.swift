import ArgumentParser
import Foundation
import RestConnection

/// Options every command takes.
struct DealerOptions: ParsableArguments {
    static let defaultURL = "http://127.0.0.1:8080/CarDealer.svc/"

    @Option(help: ArgumentHelp("The service root of the gateway (default: DEALER_URL, else \(DealerOptions.defaultURL)).",
                               valueName: "url"))
    var url: String?

    @Flag(help: "Print the service's JSON response as it came, for scripts.")
    var json = false

    /// The service root: the option, else the environment, else the local default.
    var serviceRoot: String {
        url ?? ProcessInfo.processInfo.environment["DEALER_URL"].flatMap { $0.isEmpty ? nil : $0 } ?? DealerOptions.defaultURL
    }

    func validate() throws {
        guard RestConnection(baseURLString: serviceRoot) != nil else {
            throw ValidationError("\(serviceRoot) is not an http(s) URL")
        }
    }

    func makeService() -> DealerService {
        DealerService(connection: RestConnection(baseURLString: serviceRoot, timeout: 15)!)
    }
}
