import ArgumentParser
import Foundation
import RestConnection

/// How every command reaches the service. These options may also come before the command:
/// `dealer --url URL people`.
struct DealerOptions: ParsableArguments {
    static let defaultURL = "http://127.0.0.1:8080/CarDealer.svc/"
    /// The options `dealer` accepts before its command, and whether each takes a value.
    static let hoistable: [String: Bool] = ["--url": true, "--api-key": true, "--ca-cert": true, "--timeout": true]

    @Option(help: ArgumentHelp("The service root of the gateway (default: DEALER_URL, else \(DealerOptions.defaultURL)).",
                               valueName: "url"))
    var url: String?

    @Option(name: .customLong("api-key"),
            help: ArgumentHelp("An API key, sent as 'Authorization: Bearer KEY' (default: DEALER_API_KEY).", valueName: "key"))
    var apiKey: String?

    @Option(name: .customLong("ca-cert"),
            help: ArgumentHelp("Trust HTTPS servers whose certificate chains to this CA certificate (PEM).", valueName: "file"))
    var caCert: String?

    @Option(help: ArgumentHelp("Seconds a whole request may take.", valueName: "seconds"))
    var timeout: Double = 15

    /// The service root: the option, else the environment, else the local default.
    var serviceRoot: String {
        url ?? DealerOptions.environment("DEALER_URL") ?? DealerOptions.defaultURL
    }

    var credentials: Credentials? {
        (apiKey ?? DealerOptions.environment("DEALER_API_KEY")).map(Credentials.bearer)
    }

    func validate() throws {
        guard RestConnection.serviceRoot(serviceRoot) != nil else {
            throw ValidationError("invalid URL: \(serviceRoot) (an http or https URL with a host, and a port from 1 to 65535)")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be more than 0 seconds") }
        if let caCert {
            guard FileManager.default.isReadableFile(atPath: caCert) else {
                throw ValidationError("--ca-cert: cannot read \(caCert)")
            }
        }
    }

    func makeService() -> DealerService {
        let trust = caCert.map { ServerTrust.certificateAuthority(URL(fileURLWithPath: $0)) } ?? .system
        return DealerService(connection: RestConnection(baseURLString: serviceRoot, credentials: credentials,
                                                        trust: trust, timeout: timeout)!)
    }

    private static func environment(_ name: String) -> String? {
        ProcessInfo.processInfo.environment[name].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The arguments with connection options given before the command moved after it, where
    /// the command's parser finds them: `--url U people` becomes `people --url U`.
    static func hoisting(_ arguments: [String], commands: Set<String>) -> [String] {
        var leading: [String] = []
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if commands.contains(argument) {
                return [argument] + leading + arguments[(index + 1)...]
            }
            let name = String(argument.split(separator: "=", maxSplits: 1).first ?? "")
            guard let takesValue = hoistable[name] else { return arguments }
            leading.append(argument)
            if takesValue, !argument.contains("="), index + 1 < arguments.count {
                leading.append(arguments[index + 1])
                index += 1
            }
            index += 1
        }
        return arguments
    }
}

/// `--json`, for the commands that print one response.
struct JSONOption: ParsableArguments {
    @Flag(help: "Print the service's JSON response as it came, for scripts.")
    var json = false
}
