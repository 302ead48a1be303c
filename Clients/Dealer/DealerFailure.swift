import ArgumentParser
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import RestConnection

/// A failure the user should read as one line; it ends the command with a non-zero status.
struct DealerFailure: Error, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }

    /// The line for a failed request: a `RestConnectionError`, or the `CancellationError` of a
    /// cancelled one.
    init(_ error: any Error, serviceRoot: URL) {
        if let error = error as? RestConnectionError {
            self.init(error, serviceRoot: serviceRoot)
        } else if error is CancellationError {
            self.init("cancelled")
        } else {
            self.init("\(error)")
        }
    }

    /// The line for a failed request.
    init(_ error: RestConnectionError, serviceRoot: URL) {
        switch error {
        case .connectionFailed(_, let reason, _):
            description = "cannot reach \(serviceRoot.absoluteString): \(reason)"
        case .httpError(_, let status, let odataError, _):
            let reason = HTTPURLResponse.localizedString(forStatusCode: status)
            let message = odataError.map { ": \($0.message)" } ?? ""
            description = "the service answered \(status) \(reason)\(message)"
        case .unexpectedPayload, .invalidRequest, .accessDenied, .cancelled:
            description = error.description
        }
    }
}

extension AsyncParsableCommand {
    /// Runs the body; a failure is printed as one line on standard error and exits with status 1.
    func reportingFailures(_ body: () async throws -> Void) async throws {
        do {
            try await body()
        } catch let failure as DealerFailure {
            Terminal.printError(failure.description)
            throw ExitCode.failure
        }
    }
}
