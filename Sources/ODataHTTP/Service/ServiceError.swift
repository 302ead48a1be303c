import ODataURI

/// A failure that becomes an OData error response. The message is for the client; the detail,
/// when there is one, goes to the log only.
public struct ServiceError: Error, CustomStringConvertible {
    public let status: Int
    public let code: String
    public let message: String
    public let detail: String?
    public var headers: [(String, String)] = []

    public init(status: Int, code: String, message: String, detail: String? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.detail = detail
    }

    public var description: String { "\(status) \(code): \(message)" + (detail.map { " [\($0)]" } ?? "") }

    public static func badRequest(_ message: String) -> ServiceError { ServiceError(status: 400, code: "BadRequest", message: message) }
    public static func notFound(_ message: String) -> ServiceError { ServiceError(status: 404, code: "NotFound", message: message) }
    public static func methodNotAllowed(_ message: String, allow: String) -> ServiceError {
        var error = ServiceError(status: 405, code: "MethodNotAllowed", message: message)
        error.headers = [("Allow", allow)]
        return error
    }
    public static func notAcceptable(_ message: String) -> ServiceError { ServiceError(status: 406, code: "NotAcceptable", message: message) }
    public static func internalError(detail: String) -> ServiceError {
        ServiceError(status: 500, code: "InternalError", message: "An error occurred while processing this request.", detail: detail)
    }

    init(_ error: URIError) {
        switch error.kind {
        case .badRequest: self.init(status: 400, code: "BadRequest", message: error.message)
        case .notFound: self.init(status: 404, code: "NotFound", message: error.message)
        case .methodNotAllowed: self.init(status: 405, code: "MethodNotAllowed", message: error.message)
        case .notImplemented: self.init(status: 501, code: "NotImplemented", message: error.message)
        }
    }

    init(_ error: LimitExceeded) {
        self.init(status: 400, code: "BadRequest", message: error.message)
    }

    init(_ violation: FramingViolation) {
        switch violation {
        case .unsupportedTransferCoding: self.init(status: violation.status, code: "NotImplemented", message: violation.message)
        case .headTooLarge: self.init(status: violation.status, code: "RequestHeaderFieldsTooLarge", message: violation.message)
        default: self.init(status: violation.status, code: "BadRequest", message: violation.message)
        }
    }
}
