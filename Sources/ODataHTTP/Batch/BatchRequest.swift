/// A parsed `$batch` request body (MS-ODATA 2.2.7.6): query operations and change sets, in
/// the order the client sent them.
public struct BatchRequest: Sendable, Equatable {
    public var parts: [BatchPart]

    public init(parts: [BatchPart]) {
        self.parts = parts
    }

    /// Every operation, change-set members included, in document order.
    public var operations: [BatchOperation] {
        parts.flatMap { part -> [BatchOperation] in
            switch part {
            case .query(let operation): return [operation]
            case .changeSet(let operations): return operations
            }
        }
    }
}

public enum BatchPart: Sendable, Equatable {
    /// A retrieve request (GET), run on its own.
    case query(BatchOperation)
    /// Insert, update and delete requests applied atomically: all of them or none.
    case changeSet([BatchOperation])
}

/// One HTTP request inside a batch.
public struct BatchOperation: Sendable, Equatable {
    /// Where the client put the Content-ID; the response puts it back in the same place
    /// (MS-ODATA 2.2.7.6.6).
    public enum ContentIDLocation: Sendable, Equatable {
        case partHeader
        case requestHeader
    }

    /// GET, POST, PUT, MERGE, PATCH or DELETE.
    public var method: String
    /// The request-target as written: absolute (`http://host/service.svc/Set(1)`), absolute
    /// path (`/service.svc/Set(1)`), relative to the service root (`Set(1)`) or a Content-ID
    /// reference (`$1/Nav`).
    public var uri: String
    /// The operation's own headers (those after the request line), not the MIME part's.
    public var headers: BatchHeaders
    public var body: [UInt8]
    /// The Content-ID that later operations of the same change set may refer to as `$id`.
    public var contentID: String?
    public var contentIDLocation: ContentIDLocation?

    public init(method: String, uri: String, headers: BatchHeaders = BatchHeaders(), body: [UInt8] = [],
                contentID: String? = nil, contentIDLocation: ContentIDLocation? = nil) {
        self.method = method
        self.uri = uri
        self.headers = headers
        self.body = body
        self.contentID = contentID
        self.contentIDLocation = contentID == nil ? nil : (contentIDLocation ?? .partHeader)
    }
}
