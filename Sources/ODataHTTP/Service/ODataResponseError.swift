import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// A failure that knows the OData error it is answered with, as Hummingbird's
/// `HTTPResponseError` knows its response. `ODataService.errorResponse(for:request:)` is the one
/// place any failure becomes a response; a failure that does not conform is a 500 whose
/// description goes to the log only.
public protocol ODataResponseError: Error {
    var status: Int { get }
    /// The OData error code (`BadRequest`, `NotFound`, ...).
    var code: String { get }
    /// What the client is told.
    var message: String { get }
    /// Header fields the answer carries besides the ones every error response has.
    var headers: [(String, String)] { get }
    /// What the log is told besides the message, never the client.
    var detail: String? { get }
}

extension ODataResponseError {
    public var headers: [(String, String)] { [] }
    public var detail: String? { nil }
}

extension ServiceError: ODataResponseError {}

extension URIError: ODataResponseError {
    public var status: Int {
        switch kind {
        case .badRequest: 400
        case .notFound: 404
        case .methodNotAllowed: 405
        case .notImplemented: 501
        }
    }

    public var code: String {
        switch kind {
        case .badRequest: "BadRequest"
        case .notFound: "NotFound"
        case .methodNotAllowed: "MethodNotAllowed"
        case .notImplemented: "NotImplemented"
        }
    }
}

/// A request past one of the service's limits.
extension LimitExceeded: ODataResponseError {
    public var status: Int { 400 }
    public var code: String { "BadRequest" }
}

/// A body that cannot be applied.
extension PayloadError: ODataResponseError {
    public var status: Int { 400 }
    public var code: String { "BadRequest" }
}

/// A batch that cannot be read, refused before any operation runs.
extension BatchError: ODataResponseError {
    public var status: Int { 400 }
    public var code: String { "BadRequest" }
}

/// A write the store refuses carries its own status.
extension WriteError: ODataResponseError {
    public var status: Int {
        switch kind {
        case .badRequest: 400
        case .notFound: 404
        case .conflict: 409
        case .preconditionFailed: 412
        }
    }

    public var code: String {
        switch kind {
        case .badRequest: "BadRequest"
        case .notFound: "NotFound"
        case .conflict: "Conflict"
        case .preconditionFailed: "PreconditionFailed"
        }
    }
}

/// A request the server did not read as it reads others: too large a body, no room for it, a
/// head it refuses.
extension TransportCondition: ODataResponseError {
    public var code: String {
        switch self {
        case .bodyTooLarge: "PayloadTooLarge"
        case .bodyMemoryExhausted: "ServiceUnavailable"
        case .framing(.unsupportedTransferCoding): "NotImplemented"
        case .framing(.headTooLarge): "RequestHeaderFieldsTooLarge"
        case .framing: "BadRequest"
        }
    }

    public var headers: [(String, String)] {
        self == .bodyMemoryExhausted ? [("Retry-After", "1")] : []
    }
}

/// What the storage engine reports (`StoreFailure`), as the client hears it: busy and aborted
/// writes may succeed when tried again, a constraint is the request's clash with what is stored,
/// a value the engine cannot store is a bad request, and anything else is the service's own
/// failure. (An engine's error spells its own `code` and `message`, so it is answered through
/// this rather than conforming itself.)
struct DatabaseFailure: ODataResponseError {
    let error: any StoreFailure

    var status: Int {
        if error.isBusy || error.isAborted { return 503 }
        if error.rejectsValue { return 400 }
        return error.isConstraintViolation ? 409 : 500
    }

    var code: String {
        if error.isBusy || error.isAborted { return "ServiceUnavailable" }
        if error.rejectsValue { return "BadRequest" }
        return error.isConstraintViolation ? "Conflict" : "InternalError"
    }

    var message: String {
        if error.isBusy { return "The database is busy; retry the request." }
        if error.isAborted { return "The change was not saved; retry the request." }
        if error.rejectsValue { return "The request holds a value the database cannot store: \(error.message)." }
        if error.isConstraintViolation { return "The change breaks a constraint of the database: \(error.message)." }
        return ServiceError.internalErrorMessage
    }

    var detail: String? { error.description }

    /// A 503 says when to try again: the database was busy, or the write lost a race with
    /// another (a serialization failure retried to its bound) or a connection being re-established.
    var headers: [(String, String)] {
        error.isBusy || error.isAborted ? [("Retry-After", "1")] : []
    }
}

extension ODataService {
    /// Any failure of a request as the OData error response it earns, negotiated as data is
    /// (`ContentNegotiation.forError`); a 5xx is logged with its detail. Requests and
    /// `$batch` operations alike are answered through it.
    func errorResponse(for failure: any Error, request: HTTPRequest) -> HTTPResponse {
        let error: any ODataResponseError = switch failure {
        case let error as any ODataResponseError: error
        case let error as any StoreFailure: DatabaseFailure(error: error)
        default: ServiceError.internalError(detail: String(describing: failure))
        }
        if error.status >= 500 {
            logger.error("\(request.method) \(Self.loggedTarget(request)) -> \(error.status): \(error.detail ?? error.message)")
        } else {
            logger.debug("\(request.method) \(Self.loggedTarget(request)) -> \(error.status): \(error.message)")
        }
        switch ContentNegotiation.forError(accept: request.header(.accept), format: Self.queryOption("$format", in: request.query)) {
        case .html: return htmlError(error, request: request)
        case let representation: return Self.errorDocument(error, xml: representation == .xml)
        }
    }

    /// The response for `error`: its status and header fields, the ones every error response
    /// has, and the OData error document.
    static func errorDocument(_ error: any ODataResponseError, xml: Bool) -> HTTPResponse {
        var headers = error.headers + [("DataServiceVersion", "1.0;"), ("Cache-Control", "no-cache"), ("X-Content-Type-Options", "nosniff"),
                                       ("Vary", "Accept")]
        let body: [UInt8]
        if xml {
            headers.insert(("Content-Type", "application/xml;charset=utf-8"), at: 0)
            body = Array(ErrorSerializer.xml(code: error.code, message: error.message).utf8)
        } else {
            headers.insert(("Content-Type", "application/json;charset=utf-8"), at: 0)
            body = ErrorSerializer.json(code: error.code, message: error.message)
        }
        return HTTPResponse(status: error.status, headers: headers, body: body)
    }

    /// The server's answers to connections it refuses before reading a request
    /// (`HTTPServer.Configuration.refusalAtLimit`, `refusalPerAddress`), as OData errors.
    public static var connectionRefusals: (atLimit: HTTPResponse, perAddress: HTTPResponse) {
        var atLimit = ServiceError(status: 503, code: "ServiceUnavailable", message: "The service has no room for another connection; retry shortly.")
        atLimit.headers = [("Retry-After", "1")]
        var perAddress = ServiceError(status: 429, code: "TooManyConnections",
                                      message: "This client address has too many connections open; retry when one closes.")
        perAddress.headers = [("Retry-After", "1")]
        return (errorDocument(atLimit, xml: false), errorDocument(perAddress, xml: false))
    }
}
