import Foundation
import ODataSerialization
import ODataStore

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
        let batch = try BatchRequestParser().parse(outer.body, contentType: outer.header(.contentType))
        var parts: [BatchResponsePart] = []
        for part in batch.parts {
            switch part {
            case .query(let operation):
                parts.append(.query(runQuery(operation, outer: outer)))
            case .changeSet(let operations):
                parts.append(try runChangeSet(operations, outer: outer))
            }
        }
        let (contentType, body) = BatchResponseWriter.write(parts)
        return HTTPResponse(status: 202, headers: [
            ("Content-Type", contentType),
            ("DataServiceVersion", ResponseVersion.v1.headerValue),
            ("Cache-Control", "no-cache"),
        ], body: body)
    }

    private func runQuery(_ operation: BatchOperation, outer: HTTPRequest) -> BatchOperationResponse {
        let request = httpRequest(for: operation, uri: operation.uri, outer: outer)
        do {
            let (context, method) = try requestContext(for: request)
            guard method == "GET" else { throw ServiceError.badRequest("Only GET may stand outside a change set.") }
            return response(answering: operation, with: try conditionalRead(context))
        } catch {
            return response(answering: operation, with: errorResponse(ServiceError(failure: error), request: request))
        }
    }

    /// Runs a change set as one write of the `WriteGate`. An operation that fails rolls it back,
    /// and its error becomes the change set's only response.
    private func runChangeSet(_ operations: [BatchOperation], outer: HTTPRequest) throws -> BatchResponsePart {
        do {
            let (responses, commit) = try writeGate.write { database throws -> [BatchOperationResponse] in
                var contentIDs = ContentIDReferences()
                var responses: [BatchOperationResponse] = []
                for operation in operations {
                    var request = httpRequest(for: operation, uri: operation.uri, outer: outer)
                    let answer: HTTPResponse
                    do {
                        request = httpRequest(for: operation, uri: try contentIDs.resolve(operation.uri), outer: outer)
                        let (context, method) = try requestContext(for: request)
                        let write = WriteContext(request: context, database: database, model: model, contentIDs: contentIDs)
                        answer = try performWrite(write, method: method)
                    } catch {
                        throw ChangeSetFailure(response: response(answering: operation, with: errorResponse(ServiceError(failure: error), request: request)))
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
    private func httpRequest(for operation: BatchOperation, uri: String, outer: HTTPRequest) -> HTTPRequest {
        var fields = operation.headers.map { (name: ASCIICase.lowercased($0.name), value: $0.value) }
        if !fields.contains(where: { $0.name == "host" }), let host = outer.header(.host) { fields.append(("host", host)) }
        let target: String
        if let schemeEnd = uri.range(of: "://") {
            let afterAuthority = uri[schemeEnd.upperBound...]
            target = afterAuthority.firstIndex(of: "/").map { String(afterAuthority[$0...]) } ?? "/"
        } else if uri.hasPrefix("/") {
            target = uri
        } else {
            target = configuration.rootPath + "/" + uri
        }
        return HTTPRequest(method: operation.method, target: target, headerFields: fields, body: operation.body)
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
