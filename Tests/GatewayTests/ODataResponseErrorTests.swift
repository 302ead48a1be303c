import CSQLite
import Foundation
import HTTPCore
import Logging
@testable import ODataHTTP
import ODataSerialization
import ODataStore
import SQLiteStore
import ODataURI
import Testing

/// Every failure becomes an OData error response in one place (`ODataService.errorResponse`):
/// each error type says its status, code and message (`ODataResponseError`), and what the server
/// could not read as usual (`TransportCondition`) is answered the same way.
@Suite struct ODataResponseErrorTests {
    let gateway: TestGateway
    init() throws { gateway = try TestGateway() }

    private func answer(_ condition: TransportCondition, accept: String? = nil) throws -> HTTPResponse {
        var request = HTTPRequest(method: "POST", target: "/CarDealer.svc/Person", headers: accept.map { ["Accept": $0] } ?? [:])
        request.transportCondition = condition
        return gateway.service.handle(request)
    }

    /// The code and message of an OData JSON error document.
    private func error(in response: HTTPResponse) throws -> (code: String?, message: String?) {
        let error = (try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: [String: Any]])?["error"]
        return (error?["code"] as? String, (error?["message"] as? [String: Any])?["value"] as? String)
    }

    @Test(arguments: [
        (TransportCondition.bodyTooLarge(limit: 10), 413, "PayloadTooLarge"),
        (.bodyMemoryExhausted, 503, "ServiceUnavailable"),
        (.framing(.lengthWithTransferEncoding), 400, "BadRequest"),
        (.framing(.repeatedContentLength), 400, "BadRequest"),
        (.framing(.unsupportedTransferCoding("gzip")), 501, "NotImplemented"),
        (.framing(.chunkedNotFinal), 400, "BadRequest"),
        (.framing(.missingHost), 400, "BadRequest"),
        (.framing(.repeatedHost), 400, "BadRequest"),
        (.framing(.malformedField), 400, "BadRequest"),
        (.framing(.headTooLarge(maxBytes: 10240, maxFields: 64)), 431, "RequestHeaderFieldsTooLarge"),
    ])
    func eachTransportConditionIsAnODataError(condition: TransportCondition, status: Int, code: String) throws {
        let response = try answer(condition)
        #expect(response.status == status)
        let error = try error(in: response)
        #expect(error.code == code)
        #expect(error.message == condition.message)
        #expect(response.header("Content-Type") == "application/json;charset=utf-8")
        #expect(response.header("X-Content-Type-Options") == "nosniff")
        #expect(response.header("DataServiceVersion") == "1.0;")
        #expect(response.header("Retry-After") == (condition == .bodyMemoryExhausted ? "1" : nil))
        // As XML to a client that asks for it, like every other error.
        let xml = try answer(condition, accept: "application/xml")
        #expect(xml.status == status)
        #expect(xml.header("Content-Type") == "application/xml;charset=utf-8")
        #expect(String(decoding: xml.body, as: UTF8.self).contains("<code>\(code)</code>"))
    }

    /// What SQLite reports is answered by its kind; anything the service does not know is a 500
    /// whose description reaches the log only.
    @Test func storageAndUnknownFailuresAreAnsweredByKind() {
        let busy = DatabaseFailure(error: SQLiteError(code: SQLITE_BUSY, message: "database is locked"))
        #expect((busy.status, busy.code) == (503, "ServiceUnavailable"))
        let aborted = DatabaseFailure(error: SQLiteError(code: SQLITE_ABORT, message: "abort"))
        #expect((aborted.status, aborted.code) == (503, "ServiceUnavailable"))
        let constraint = DatabaseFailure(error: SQLiteError(code: SQLITE_CONSTRAINT, message: "UNIQUE constraint failed"))
        #expect((constraint.status, constraint.code) == (409, "Conflict"))
        #expect(constraint.message.contains("UNIQUE constraint failed"))
        let other = DatabaseFailure(error: SQLiteError(code: SQLITE_CORRUPT, message: "secret detail"))
        #expect((other.status, other.code) == (500, "InternalError"))
        #expect(!other.message.contains("secret detail"))
        #expect(other.detail?.contains("secret detail") == true)
    }

    /// Each error type's own status and code.
    @Test func eachErrorTypeSaysItsStatusAndCode() {
        let errors: [(any ODataResponseError, Int, String)] = [
            (URIError(.badRequest, "x"), 400, "BadRequest"), (URIError(.notFound, "x"), 404, "NotFound"),
            (URIError(.methodNotAllowed, "x"), 405, "MethodNotAllowed"), (URIError(.notImplemented, "x"), 501, "NotImplemented"),
            (WriteError(.badRequest, "x"), 400, "BadRequest"), (WriteError(.notFound, "x"), 404, "NotFound"),
            (WriteError(.conflict, "x"), 409, "Conflict"), (WriteError(.preconditionFailed, "x"), 412, "PreconditionFailed"),
            (PayloadError("x"), 400, "BadRequest"), (BatchError("x"), 400, "BadRequest"),
            (LimitExceeded(.batchCount, value: 1, subject: "x"), 400, "BadRequest"),
            (ServiceError.notAcceptable("x"), 406, "NotAcceptable"),
        ]
        for (error, status, code) in errors {
            #expect(error.status == status, "\(error)")
            #expect(error.code == code, "\(error)")
        }
    }
}
