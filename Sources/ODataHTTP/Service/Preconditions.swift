import HTTPCore
import ODataStore
import ODataURI

/// Conditional requests on ETags (MS-ODATA 2.2.5.4 to 2.2.5.6): If-Match guards a write
/// against changes made since the client read the entity; If-None-Match spares a GET the body
/// the client already has.
///
/// If-Match is optional: a write without it goes ahead, as every entity has an ETag and
/// requiring the header would break clients that never send it.
extension ODataService {
    /// Refuses a write to `record` with 412 when If-Match names another version of it.
    func checkPreconditions(of record: EntityRecord, _ request: HTTPRequest) throws {
        if request.header(.ifNoneMatch) != nil {
            throw ServiceError.badRequest("If-None-Match applies to GET only; use If-Match to make an update or a delete conditional.")
        }
        guard let ifMatch = request.header(.ifMatch) else { return }
        let current = EntityTag.of(record)
        guard EntityTag.header(ifMatch, matches: current) else {
            throw WriteError(.preconditionFailed, "\(EntityWriter.describe(record)) has changed since it was read: If-Match asks for \(ifMatch), but its ETag is now \(current).")
        }
    }

    /// A GET, answered 304 Not Modified when If-None-Match names the entity's current ETag and
    /// 412 when If-Match names none of it. Responses without an ETag (collections) ignore both.
    func conditionalRead(_ context: RequestContext) throws -> HTTPResponse {
        let response = Self.readsSeveralStatements(context.info)
            ? try database().readTransaction { try read(context) }
            : try read(context)
        // The request's preconditions first: most reads have none, and then the response's
        // headers need not be searched for its ETag.
        let request = context.request
        let ifMatch = request.header(.ifMatch), ifNoneMatch = request.header(.ifNoneMatch)
        guard ifMatch != nil || ifNoneMatch != nil, response.status == 200, let tag = response.header("ETag") else {
            return response
        }
        if let ifMatch, !EntityTag.header(ifMatch, matches: tag) {
            throw ServiceError(status: 412, code: "PreconditionFailed", message: "If-Match asks for \(ifMatch), but the current ETag is \(tag).")
        }
        if let ifNoneMatch, EntityTag.header(ifNoneMatch, matches: tag) {
            return HTTPResponse(status: 304, headers: [("ETag", tag), ("DataServiceVersion", "1.0;"), ("Cache-Control", "no-cache")])
        }
        return response
    }

    /// Reads of more than one statement (a page and its count, expansions) run in one read
    /// transaction: one snapshot, begun and ended once. A lone statement (an entity, a page of
    /// a set with nothing expanded or counted) SQLite already runs in a transaction of its own,
    /// and BEGIN and COMMIT around it cost two more statements (about 2,000 instructions of a
    /// `Person?$top=20`); `read` opens one itself for an entity whose expansions are read after
    /// its statement is done (see `ReadProcessor`).
    static func readsSeveralStatements(_ info: UriInfo) -> Bool {
        switch info.resource {
        case .entityCollection(let path):
            // A page below an entity reads that entity too when the page is empty (a 404 if it
            // does not exist); a page of a set reads only itself, without expansions or a count.
            path.segments.count > 1 || !info.options.expand.isEmpty || info.options.inlineCount == .allPages
        case .count, .links: true
        case .entity, .property, .metadata, .serviceDocument, .batch: false
        }
    }
}
