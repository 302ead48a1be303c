import HTTPCore
import ODataStore
import ODataURI

/// Conditional requests on ETags (MS-ODATA 2.2.5.4 to 2.2.5.6): If-Match guards a write
/// against changes made since the client read the entity; If-None-Match spares a GET the body
/// the client already has.
///
/// If-Match is optional unless `requiresIfMatch` (`--require-if-match`): a write without it goes
/// ahead, as every entity has an ETag and requiring the header would break clients that never
/// send it. Required, its absence is 428 (RFC 6585), as WCF Data Services answers.
extension ODataService {
    /// Refuses a write to `record` with 412 when If-Match names another version of it.
    func checkPreconditions(of record: EntityRecord, _ request: HTTPRequest) throws {
        if request.header(.ifNoneMatch) != nil {
            throw ServiceError.badRequest("If-None-Match applies to GET only; use If-Match to make an update or a delete conditional.")
        }
        guard let ifMatch = request.header(.ifMatch) else {
            guard !configuration.requiresIfMatch else {
                throw ServiceError(status: 428, code: "PreconditionRequired",
                                   message: "\(EntityWriter.describe(record)) has an ETag: send it in If-Match (or If-Match: *) to change or delete it.")
            }
            return
        }
        let current = EntityTag.of(record)
        guard RepresentationTag.ifMatch(ifMatch, namesVersionOf: current) else {
            throw WriteError(.preconditionFailed, "\(EntityWriter.describe(record)) has changed since it was read: If-Match asks for \(ifMatch), but its ETag is now \(current).")
        }
    }

    /// A GET, answered 304 Not Modified when If-None-Match names the entity's current ETag and
    /// 412 when If-Match names none of it. Responses without an ETag (collections) ignore both.
    func conditionalRead(_ context: RequestContext) throws -> HTTPResponse {
        // Every read of the request in one snapshot (`ReadScope`); a read known to need one
        // statement says so, and an engine may then run it without a transaction.
        let response = try context.worker.reader().readScope(context.queryMemo.readScopeShape) { try read(context) }
        // The request's preconditions first: most reads have none, and then the response's
        // headers need not be searched for its ETag.
        let request = context.request
        let ifMatch = request.header(.ifMatch), ifNoneMatch = request.header(.ifNoneMatch)
        guard ifMatch != nil || ifNoneMatch != nil, response.status == 200, let tag = response.header("ETag") else {
            return response
        }
        if let ifMatch, !RepresentationTag.ifMatch(ifMatch, namesVersionOf: tag) {
            throw ServiceError(status: 412, code: "PreconditionFailed", message: "If-Match asks for \(ifMatch), but the current ETag is \(tag).")
        }
        if let ifNoneMatch, RepresentationTag.ifNoneMatch(ifNoneMatch, names: tag) {
            return HTTPResponse(status: 304, headers: [("ETag", tag), ("DataServiceVersion", "1.0;"), ("Cache-Control", "no-cache"),
                                                       ("Vary", "Accept")])
        }
        return response
    }
}
