import ODataSerialization
import ODataStore
import ODataURI

/// The HTTP answers to the failures of writes: a body that cannot be applied is a 400, a write
/// the store refuses carries its own status, a batch that cannot be read is a 400.
extension ServiceError {
    init(_ error: PayloadError) {
        self.init(status: 400, code: "BadRequest", message: error.message)
    }

    init(_ error: WriteError) {
        switch error.kind {
        case .badRequest: self.init(status: 400, code: "BadRequest", message: error.message)
        case .notFound: self.init(status: 404, code: "NotFound", message: error.message)
        case .conflict: self.init(status: 409, code: "Conflict", message: error.message)
        case .preconditionFailed: self.init(status: 412, code: "PreconditionFailed", message: error.message)
        }
    }

    init(_ error: BatchError) {
        self.init(status: 400, code: "BadRequest", message: error.message)
    }

    static func unsupportedMediaType(_ message: String) -> ServiceError {
        ServiceError(status: 415, code: "UnsupportedMediaType", message: message)
    }

    /// Any failure of a request as the error response it earns; what is not a known failure is
    /// a 500 whose detail goes to the log only.
    init(failure error: Error) {
        switch error {
        case let error as ServiceError: self = error
        case let error as URIError: self.init(error)
        case let error as LimitExceeded: self.init(error)
        case let error as PayloadError: self.init(error)
        case let error as WriteError: self.init(error)
        case let error as BatchError: self.init(error)
        case let error as any StoreFailure where error.isBusy:
            self.init(status: 503, code: "ServiceUnavailable", message: "The database is busy; retry the request.", detail: error.description)
        case let error as any StoreFailure where error.isAborted:
            self.init(status: 503, code: "ServiceUnavailable", message: "The change was not saved; retry the request.", detail: error.description)
        case let error as any StoreFailure where error.isConstraintViolation:
            self.init(status: 409, code: "Conflict", message: "The change breaks a constraint of the database: \(error.message).", detail: error.description)
        default:
            self = .internalError(detail: String(describing: error))
        }
    }
}
