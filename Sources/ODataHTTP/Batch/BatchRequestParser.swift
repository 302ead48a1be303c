import ODataURI

/// Reads a `$batch` request body (MS-ODATA 2.2.7.6) into a `BatchRequest`.
///
/// The whole body is read and checked before any operation runs, so a malformed batch is
/// answered with one 400 and changes nothing. What is checked: the boundary, the delimiters
/// and the close delimiter, each part's Content-Type and Content-Transfer-Encoding, the request
/// line of each operation, GET only outside change sets and never inside, no nested change
/// sets, Content-IDs unique within their change set, and the operation count.
public struct BatchRequestParser: Sendable {
    /// The methods an operation may use.
    public static let methods: Set<String> = ["GET", "POST", "PUT", "MERGE", "PATCH", "DELETE"]

    /// The most operations (change-set members included) one batch may carry.
    public let maximumOperations: Int
    /// The most operations one change set may carry.
    public let maximumChangeSetOperations: Int

    public init(maximumOperations: Int = QueryLimits().maxBatchCount,
                maximumChangeSetOperations: Int = QueryLimits().maxChangesetCount) {
        self.maximumOperations = maximumOperations
        self.maximumChangeSetOperations = maximumChangeSetOperations
    }

    /// Parses a body given the request's Content-Type header.
    public func parse(_ body: [UInt8], contentType: String?) throws(BatchError) -> BatchRequest {
        try parse(body, boundary: BatchRequestParser.boundary(fromContentType: contentType))
    }

    public func parse(_ body: [UInt8], boundary: String) throws(BatchError) -> BatchRequest {
        try BatchRequestParser.checkBoundary(boundary, of: "the batch")
        let rawParts = try MultipartBody.parts(of: body[...], boundary: boundary, what: "The batch body")
        var parts: [BatchPart] = []
        var operationCount = 0
        for (index, rawPart) in rawParts.enumerated() {
            let place = "Batch part \(index + 1)"
            let (headers, bodyStart) = try MultipartBody.headers(of: rawPart, what: place)
            let content = rawPart[(bodyStart ?? rawPart.endIndex)...]
            let mediaType = try BatchRequestParser.mediaType(of: headers, at: place)
            switch mediaType.essence {
            case "application/http":
                let operation = try self.operation(partHeaders: headers, content: content, at: place)
                guard operation.method == "GET" else {
                    throw BatchError("\(place): \(operation.method) \(operation.uri) is outside a change set; only GET may be, so put it in a change set.")
                }
                parts.append(.query(operation))
                operationCount += 1
            case "multipart/mixed":
                guard let changeSetBoundary = mediaType.parameters["boundary"] else {
                    throw BatchError("\(place): the change set's Content-Type has no boundary parameter.")
                }
                try BatchRequestParser.checkBoundary(changeSetBoundary, of: "\(place)'s change set")
                guard changeSetBoundary != boundary else {
                    throw BatchError("\(place): the change set uses the batch's own boundary '\(boundary)'.")
                }
                let operations = try changeSet(content, boundary: changeSetBoundary, at: place)
                parts.append(.changeSet(operations))
                operationCount += operations.count
            default:
                throw BatchError("\(place) has Content-Type '\(headers["Content-Type"] ?? "")'; expected application/http or multipart/mixed.")
            }
            guard operationCount <= maximumOperations else {
                throw BatchError(LimitExceeded(.batchCount, value: maximumOperations, subject: "The batch has").message)
            }
        }
        return BatchRequest(parts: parts)
    }

    private func changeSet(_ body: ArraySlice<UInt8>, boundary: String, at place: String) throws(BatchError) -> [BatchOperation] {
        let rawParts = try MultipartBody.parts(of: body, boundary: boundary, what: "\(place) (a change set)")
        var operations: [BatchOperation] = []
        var contentIDs = Set<String>()
        for (index, rawPart) in rawParts.enumerated() {
            let operationPlace = "\(place), change set operation \(index + 1)"
            let (headers, bodyStart) = try MultipartBody.headers(of: rawPart, what: operationPlace)
            let mediaType = try BatchRequestParser.mediaType(of: headers, at: operationPlace)
            guard mediaType.essence == "application/http" else {
                if mediaType.essence == "multipart/mixed" {
                    throw BatchError("\(operationPlace): change sets cannot be nested.")
                }
                throw BatchError("\(operationPlace) has Content-Type '\(headers["Content-Type"] ?? "")'; expected application/http.")
            }
            let operation = try self.operation(partHeaders: headers, content: rawPart[(bodyStart ?? rawPart.endIndex)...], at: operationPlace)
            guard operation.method != "GET" else {
                throw BatchError("\(operationPlace): GET \(operation.uri) is inside a change set; retrieve requests go outside change sets.")
            }
            if let id = operation.contentID {
                guard contentIDs.insert(id).inserted else {
                    throw BatchError("\(operationPlace): Content-ID '\(id)' is used twice in the same change set.")
                }
            }
            operations.append(operation)
            guard operations.count <= maximumChangeSetOperations else {
                throw BatchError(LimitExceeded(.changesetCount, value: maximumChangeSetOperations, subject: "\(place)'s change set has").message)
            }
        }
        return operations
    }

    /// An `application/http` part: the request line, the operation's headers, its body.
    private func operation(partHeaders: BatchHeaders, content: ArraySlice<UInt8>, at place: String) throws(BatchError) -> BatchOperation {
        if let encoding = partHeaders["Content-Transfer-Encoding"], !["binary", "8bit", "7bit"].contains(encoding.lowercased()) {
            throw BatchError("\(place): Content-Transfer-Encoding '\(encoding)' is not supported; use binary.")
        }
        // Skip blank lines before the request line, as HTTP/1.1 servers do (RFC 9112 section 2.2).
        var start = content.startIndex
        while start < content.endIndex, content[start] == 0x0D || content[start] == 0x0A { start += 1 }
        guard start < content.endIndex else { throw BatchError("\(place) contains no HTTP request.") }
        let lineEnd = content[start...].firstIndex(of: 0x0A) ?? content.endIndex
        var requestLine = content[start..<lineEnd]
        if requestLine.last == 0x0D { requestLine = requestLine.dropLast() }
        let lineText = String(decoding: requestLine, as: UTF8.self)
        let tokens = lineText.split(separator: " ", omittingEmptySubsequences: false)
        guard tokens.count == 3, tokens.allSatisfy({ !$0.isEmpty }) else {
            throw BatchError("\(place): '\(MultipartBody.clip(lineText))' is not an HTTP request line (METHOD URI HTTP/1.1).")
        }
        let method = String(tokens[0]), uri = String(tokens[1]), version = String(tokens[2])
        guard BatchRequestParser.methods.contains(method) else {
            throw BatchError("\(place): method '\(MultipartBody.clip(method))' is not supported in a batch (GET, POST, PUT, MERGE, PATCH, DELETE).")
        }
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else {
            throw BatchError("\(place): '\(MultipartBody.clip(version))' is not a supported HTTP version; expected HTTP/1.1.")
        }
        guard !uri.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true }) else {
            throw BatchError("\(place): the request URI contains whitespace or control characters.")
        }

        let afterRequestLine = content[min(lineEnd + 1, content.endIndex)...]
        let (headers, bodyStart) = try MultipartBody.headers(of: afterRequestLine, what: place)
        var body = Array(afterRequestLine[(bodyStart ?? afterRequestLine.endIndex)...])
        if let lengthText = headers["Content-Length"] {
            guard let length = Int(lengthText), length >= 0 else {
                throw BatchError("\(place): Content-Length '\(MultipartBody.clip(lengthText))' is not a number.")
            }
            guard length <= body.count else {
                throw BatchError("\(place): Content-Length is \(length) but the body has only \(body.count) bytes.")
            }
            body = Array(body.prefix(length))
        }

        var contentID: String?
        var location: BatchOperation.ContentIDLocation?
        if let id = partHeaders["Content-ID"] {
            (contentID, location) = (id, .partHeader)
        } else if let id = headers["Content-ID"] {
            (contentID, location) = (id, .requestHeader)
        }
        if let id = contentID {
            guard !id.isEmpty, !id.contains("/"), !id.contains("?") else {
                throw BatchError("\(place): Content-ID '\(MultipartBody.clip(id))' is not a usable identifier.")
            }
        }
        return BatchOperation(method: method, uri: uri, headers: headers, body: body, contentID: contentID, contentIDLocation: location)
    }

    // MARK: Boundaries and media types

    /// The boundary parameter of a `multipart/mixed` Content-Type header.
    public static func boundary(fromContentType contentType: String?) throws(BatchError) -> String {
        guard let contentType, !contentType.isEmpty else {
            throw BatchError("A $batch request needs a Content-Type header of multipart/mixed with a boundary.")
        }
        guard let mediaType = MediaType(contentType) else {
            throw BatchError("The Content-Type '\(MultipartBody.clip(contentType))' cannot be parsed.")
        }
        guard mediaType.essence == "multipart/mixed" else {
            throw BatchError("A $batch request must be multipart/mixed, not \(mediaType.essence).")
        }
        guard let boundary = mediaType.parameters["boundary"] else {
            throw BatchError("The Content-Type multipart/mixed of the batch has no boundary parameter.")
        }
        try checkBoundary(boundary, of: "the batch")
        return boundary
    }

    /// RFC 2046: 1 to 70 characters, not ending in a space, none of them a line break.
    static func checkBoundary(_ boundary: String, of what: String) throws(BatchError) {
        guard (1...70).contains(boundary.utf8.count), boundary.last != " ",
              !boundary.utf8.contains(where: { $0 < 0x20 || $0 >= 0x7F }) else {
            throw BatchError("The boundary '\(MultipartBody.clip(boundary))' of \(what) is not valid (1 to 70 printable ASCII characters).")
        }
    }

    private static func mediaType(of headers: BatchHeaders, at place: String) throws(BatchError) -> MediaType {
        guard let text = headers["Content-Type"] else {
            throw BatchError("\(place) has no Content-Type header; expected application/http or multipart/mixed.")
        }
        guard let mediaType = MediaType(text) else {
            throw BatchError("\(place): the Content-Type '\(MultipartBody.clip(text))' cannot be parsed.")
        }
        return mediaType
    }
}
