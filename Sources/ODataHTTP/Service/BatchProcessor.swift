import Foundation
import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// `POST $batch` (MS-ODATA 2.2.7.6): query operations and change sets in one multipart/mixed
/// request, answered by one multipart/mixed response (202 Accepted).
///
/// The whole body is parsed before anything runs, so a malformed batch is one 400 and changes
/// nothing. Each query operation runs on its own. Each change set is one write: its
/// operations run in order, a later one may address what an earlier one created as `$<id>`,
/// and when any fails the transaction rolls back and a single error response stands for the
/// whole change set.
extension ODataService {
    func batch(_ context: RequestContext) throws -> HTTPResponse {
        let outer = context.request
        guard let type = RequestBodyType.essence(outer), type == "multipart/mixed" else {
            throw ServiceError.unsupportedMediaType("A $batch request must be multipart/mixed, not '\(outer.header(.contentType) ?? "")'.")
        }
        let limits = configuration.limits
        let parser = BatchRequestParser(maximumOperations: limits.maxBatchCount, maximumChangeSetOperations: limits.maxChangesetCount)
        let batch = try parser.parse(outer.body, contentType: outer.header(.contentType))
        // Written part by part as each is answered, within the response's byte limit: a query
        // whose answer would take the whole body past it is answered with a short 400 instead.
        // A change set's answers are known only once it has run: it runs while there is room.
        let byteLimit = limits.maxBatchResponseBytes
        var writer = BatchResponseWriter(expectedLimit: byteLimit + 64 * 1024)
        for part in batch.parts {
            switch part {
            case .query(let operation):
                let answer = BatchResponsePart.query(runQuery(operation, outer: outer, worker: context.worker))
                if writer.bytes.count + writer.size(of: answer) + writer.closingSize <= byteLimit {
                    writer.append(answer)
                } else {
                    writer.append(.query(overBatchByteLimit(operation, outer: outer, ran: true)))
                }
            case .changeSet(let operations):
                if let first = operations.first, writer.bytes.count + writer.closingSize >= byteLimit {
                    // Refused whole, as a failed change set is: nothing of it is written.
                    writer.append(.failedChangeSet(overBatchByteLimit(first, outer: outer, ran: false)))
                } else {
                    writer.append(try runChangeSet(operations, outer: outer, worker: context.worker))
                }
            }
        }
        let contentType = writer.contentType
        return HTTPResponse(status: 202, headers: [
            ("Content-Type", contentType),
            ("DataServiceVersion", ResponseVersion.v1.headerValue),
            ("Cache-Control", "no-cache"),
        ], body: writer.finish())
    }

    /// The 400 that stands for an operation, or a change set, past the batch response's byte limit.
    private func overBatchByteLimit(_ operation: BatchOperation, outer: HTTPRequest, ran: Bool) -> BatchOperationResponse {
        let limit = configuration.limits.maxBatchResponseBytes
        let error = LimitExceeded(.batchResponseBytes, value: limit, subject: "With this answer the $batch response would hold",
                                  advice: ran ? "Send this request again on its own or in another batch."
                                              : "This change set was not run; send it again in another batch.")
        return response(answering: operation, with: errorResponse(for: error, request: httpRequest(for: operation, uri: operation.uri, outer: outer)))
    }

    private func runQuery(_ operation: BatchOperation, outer: HTTPRequest, worker: WorkerContext) -> BatchOperationResponse {
        let request = httpRequest(for: operation, uri: operation.uri, outer: outer)
        do {
            let (context, method) = try requestContext(for: request, worker: worker)
            guard method == "GET" else { throw ServiceError.badRequest("Only GET may stand outside a change set.") }
            return response(answering: operation, with: try conditionalRead(context))
        } catch {
            return response(answering: operation, with: errorResponse(for: error, request: request))
        }
    }

    /// Runs a change set as one write of the store (`EntityStore.write`). An operation that fails rolls it back,
    /// and its error becomes the change set's only response.
    private func runChangeSet(_ operations: [BatchOperation], outer: HTTPRequest, worker: WorkerContext) throws -> BatchResponsePart {
        do {
            let (responses, commit) = try store.write(model: model) { unrestricted throws -> [BatchOperationResponse] in
                let session = restricted(unrestricted)
                try lockAddressedEntities(of: operations, outer: outer, worker: worker, in: session)
                var contentIDs = ContentIDReferences()
                var responses: [BatchOperationResponse] = []
                for operation in operations {
                    var request = httpRequest(for: operation, uri: operation.uri, outer: outer)
                    let answer: HTTPResponse
                    do {
                        request = httpRequest(for: operation, uri: try contentIDs.resolve(operation.uri), outer: outer)
                        let (context, method) = try requestContext(for: request, worker: worker)
                        let write = WriteContext(request: context, session: session, contentIDs: contentIDs)
                        answer = try performWrite(write, method: method)
                    } catch {
                        throw ChangeSetFailure(response: response(answering: operation, with: errorResponse(for: error, request: request)))
                    }
                    if let id = operation.contentID, let location = answer.header("Location") {
                        contentIDs.record(contentID: id, location: location)
                    }
                    responses.append(response(answering: operation, with: answer))
                }
                return responses
            }
            // Later parts of the batch read through this thread's own connection, which sees
            // the change set only once it is committed.
            try commit.wait()
            return .changeSet(responses)
        } catch let failure as ChangeSetFailure {
            return .failedChangeSet(failure.response)
        }
    }

    /// The operation as the request the server would have received on its own. Its URI may be
    /// absolute, an absolute path, or relative to the service root; the Host of the batch
    /// request stands in when the operation names none, so that URIs in responses agree.
    func httpRequest(for operation: BatchOperation, uri: String, outer: HTTPRequest) -> HTTPRequest {
        var fields = operation.headers.map { (name: ASCIICase.lowercased($0.name), value: $0.value) }
        if !fields.contains(where: { $0.name == "host" }), let host = outer.header(.host) { fields.append(("host", host)) }
        let target: String
        if let publicURL = configuration.publicURL, uri.hasPrefix(publicURL + "/") || uri == publicURL {
            // Below the public URL, which may differ from the served root (a proxy's prefix).
            target = configuration.rootPath + uri.dropFirst(publicURL.count)
        } else if let schemeEnd = uri.range(of: "://") {
            let afterAuthority = uri[schemeEnd.upperBound...]
            target = afterAuthority.firstIndex(of: "/").map { String(afterAuthority[$0...]) } ?? "/"
        } else if uri.hasPrefix("/") {
            target = uri
        } else {
            target = configuration.rootPath + "/" + uri
        }
        return HTTPRequest(method: operation.method, target: target, headerFields: fields, body: operation.body, index: Self.headerIndex)
    }

    private func response(answering operation: BatchOperation, with response: HTTPResponse) -> BatchOperationResponse {
        var headers = BatchHeaders()
        for (name, value) in response.allHeaders { headers.append(name, value) }
        return BatchOperationResponse(answering: operation, statusCode: response.status, headers: headers, body: response.body)
    }
}

/// Unwinds a change set's transaction, carrying the response of the operation that failed.
private struct ChangeSetFailure: Error {
    let response: BatchOperationResponse
}
