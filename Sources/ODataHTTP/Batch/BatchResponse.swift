/// The answer to one batch operation, before it is written into the multipart response.
public struct BatchOperationResponse: Sendable, Equatable {
    public var statusCode: Int
    /// The operation's own headers (Content-Type, Location, ETag, DataServiceVersion, ...).
    /// The writer sets Content-Length itself.
    public var headers: BatchHeaders
    public var body: [UInt8]
    /// Echoed from the request, in the same place it was found there.
    public var contentID: String?
    public var contentIDLocation: BatchOperation.ContentIDLocation

    public init(statusCode: Int, headers: BatchHeaders = BatchHeaders(), body: [UInt8] = [],
                contentID: String? = nil, contentIDLocation: BatchOperation.ContentIDLocation = .partHeader) {
        self.statusCode = statusCode
        self.headers = headers
        self.body = body
        self.contentID = contentID
        self.contentIDLocation = contentIDLocation
    }

    /// A response that echoes the Content-ID of `operation` the way it was sent.
    public init(answering operation: BatchOperation, statusCode: Int, headers: BatchHeaders = BatchHeaders(), body: [UInt8] = []) {
        self.init(statusCode: statusCode, headers: headers, body: body, contentID: operation.contentID,
                  contentIDLocation: operation.contentIDLocation ?? .partHeader)
    }
}

/// One part of a batch response, matching one part of the request.
public enum BatchResponsePart: Sendable, Equatable {
    case query(BatchOperationResponse)
    /// A change set that was applied: one response per operation, in a nested multipart.
    case changeSet([BatchOperationResponse])
    /// A change set that failed and was rolled back: a single error response stands for the
    /// whole change set (MS-ODATA 2.2.7.6.6).
    case failedChangeSet(BatchOperationResponse)
}
