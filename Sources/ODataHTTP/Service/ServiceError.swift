/// A failure of the service's own that becomes an OData error response (`ODataResponseError`).
/// The message is for the client; the detail, when there is one, goes to the log only.
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
        ServiceError(status: 500, code: "InternalError", message: internalErrorMessage, detail: detail)
    }

    /// What a client is told of a failure of the service's own; its detail goes to the log.
    static let internalErrorMessage = "An error occurred while processing this request."

    static func unsupportedMediaType(_ message: String) -> ServiceError {
        ServiceError(status: 415, code: "UnsupportedMediaType", message: message)
    }
}
