import Foundation

extension RestConnection {
    /// Builds a batch and sends it: `try await connection.batch { batch in ... }`.
    public func batch(_ build: (ODataBatch) -> Void) async throws {
        let batch = ODataBatch()
        build(batch)
        try await send(batch)
    }

    /// Sends a batch as one `POST $batch` and gives every item its answer. Throws only when the
    /// batch as a whole fails; a failed request (or change set) is its items' error.
    public func send(_ batch: ODataBatch) async throws {
        let operations = batch.parts.flatMap { part -> [ODataBatch.Operation] in
            switch part {
            case .query(let operation): return [operation]
            case .changeSet(let operations): return operations
            }
        }
        guard !operations.isEmpty else { return }
        let boundary = "batch_" + UUID().uuidString
        var body = ""
        for part in batch.parts {
            body += "--\(boundary)\r\n"
            switch part {
            case .query(let operation):
                body += try operationText(operation, contentID: nil)
            case .changeSet(let changes):
                let changeSetBoundary = "changeset_" + UUID().uuidString
                body += "Content-Type: multipart/mixed; boundary=\(changeSetBoundary)\r\n\r\n"
                for (index, change) in changes.enumerated() {
                    body += "--\(changeSetBoundary)\r\n" + (try operationText(change, contentID: index + 1))
                }
                body += "--\(changeSetBoundary)--\r\n"
            }
        }
        body += "--\(boundary)--\r\n"
        let response = try await send(RestRequest(method: .post, path: "$batch",
                                                  headers: ["Content-Type": "multipart/mixed; boundary=\(boundary)",
                                                            "Accept": "multipart/mixed"],
                                                  body: Data(body.utf8)))
        guard let contentType = response.header("Content-Type"), let responseBoundary = MultipartText.boundary(contentType) else {
            throw RestConnectionError.unexpectedPayload(url: response.url, reason: "the $batch answer is not multipart/mixed")
        }
        let answers = MultipartText.parts(of: response.data, boundary: responseBoundary)
        guard answers.count == batch.parts.count else {
            throw RestConnectionError.unexpectedPayload(url: response.url, reason: "the $batch answer has \(answers.count) parts for \(batch.parts.count) requests")
        }
        for (part, answer) in zip(batch.parts, answers) {
            switch part {
            case .query(let operation):
                operation.deliver(result(of: answer, url: try url(for: operation.path, query: operation.query)))
            case .changeSet(let changes):
                if let nested = answer.headers["content-type"].flatMap(MultipartText.boundary) {
                    let responses = MultipartText.parts(of: answer.body, boundary: nested)
                    for (index, change) in changes.enumerated() {
                        let changeURL = try url(for: change.path)
                        if index < responses.count {
                            change.deliver(result(of: responses[index], url: changeURL))
                        } else {
                            change.deliver(.failure(.unexpectedPayload(url: changeURL, reason: "no answer in the change set")))
                        }
                    }
                } else {
                    // A failed change set is answered once, for all of its writes: none was applied.
                    for change in changes {
                        change.deliver(result(of: answer, url: try url(for: change.path)))
                    }
                }
            }
        }
    }

    /// One request as a part of a batch body, its path relative to the service root.
    private func operationText(_ operation: ODataBatch.Operation, contentID: Int?) throws(RestConnectionError) -> String {
        let absolute = try url(for: operation.path, query: operation.query).absoluteString
        let target = absolute.hasPrefix(baseURL.absoluteString) ? String(absolute.dropFirst(baseURL.absoluteString.count)) : absolute
        var text = "Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n"
        if let contentID { text += "Content-ID: \(contentID)\r\n" }
        text += "\r\n\(operation.method.rawValue) \(target) HTTP/1.1\r\nAccept: application/json\r\n"
        if let credentials {
            let header = credentials.header
            text += "\(header.name): \(header.value)\r\n"
        }
        for (name, value) in operation.headers.sorted(by: { $0.key < $1.key }) { text += "\(name): \(value)\r\n" }
        if let body = operation.body {
            text += "Content-Type: application/json\r\nContent-Length: \(body.count)\r\n\r\n"
            text += String(decoding: body, as: UTF8.self) + "\r\n"
        } else {
            text += "\r\n"
        }
        return text
    }

    /// The embedded HTTP response of a part, as `send` would have answered it.
    private func result(of part: MultipartText.Part, url: URL) -> Result<RestResponse, RestConnectionError> {
        guard let response = MultipartText.httpResponse(part.body) else {
            return .failure(.unexpectedPayload(url: url, reason: "a $batch part holds no HTTP response"))
        }
        guard (200..<300).contains(response.status) else {
            let error = ODataError.decode(from: response.body)
            if response.status == 401 || response.status == 403 {
                return .failure(.accessDenied(url: url, statusCode: response.status, error: error, credentialsSent: credentials != nil))
            }
            return .failure(.httpError(url: url, statusCode: response.status, error: error,
                                       body: String(decoding: response.body, as: UTF8.self)))
        }
        return .success(RestResponse(url: url, statusCode: response.status, headers: response.headers, data: response.body))
    }
}

/// The little of MIME multipart that `$batch` answers need: boundaries, parts with their
/// headers, and the HTTP responses inside them.
enum MultipartText {
    struct Part {
        /// Names in lower case.
        var headers: [String: String]
        var body: Data
    }

    /// `boundary=...` of a `multipart/mixed` Content-Type.
    static func boundary(_ contentType: String) -> String? {
        guard contentType.lowercased().hasPrefix("multipart/mixed") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0].lowercased() == "boundary" {
                return pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            }
        }
        return nil
    }

    /// The parts between `--boundary` lines, up to `--boundary--`.
    static func parts(of data: Data, boundary: String) -> [Part] {
        let delimiter = Data("--\(boundary)".utf8)
        var parts: [Part] = []
        var searchFrom = data.startIndex
        guard var start = data.range(of: delimiter, in: searchFrom..<data.endIndex) else { return [] }
        while true {
            let afterDelimiter = start.upperBound
            if data[afterDelimiter...].starts(with: Data("--".utf8)) { break }
            searchFrom = afterDelimiter
            guard let next = data.range(of: delimiter, in: searchFrom..<data.endIndex) else { break }
            var content = data[afterDelimiter..<next.lowerBound]
            if content.starts(with: Data("\r\n".utf8)) { content = content.dropFirst(2) }
            if content.suffix(2) == Data("\r\n".utf8) { content = content.dropLast(2) }
            let (headers, body) = splitHead(Data(content))
            parts.append(Part(headers: headers, body: body))
            start = next
        }
        return parts
    }

    /// An `HTTP/1.1 200 OK` response: status, headers and body.
    static func httpResponse(_ data: Data) -> (status: Int, headers: [String: String], body: Data)? {
        guard let lineEnd = data.range(of: Data("\r\n".utf8)) else { return nil }
        let statusLine = String(decoding: data[data.startIndex..<lineEnd.lowerBound], as: UTF8.self)
        let fields = statusLine.split(separator: " ")
        guard fields.count >= 2, fields[0].hasPrefix("HTTP/"), let status = Int(fields[1]) else { return nil }
        let (headers, body) = splitHead(Data(data[lineEnd.upperBound...]))
        return (status, headers, body)
    }

    /// Header lines up to the blank line, and what follows.
    private static func splitHead(_ data: Data) -> ([String: String], Data) {
        let blank = data.range(of: Data("\r\n\r\n".utf8))
        let headText = String(decoding: data[data.startIndex..<(blank?.lowerBound ?? data.endIndex)], as: UTF8.self)
        var headers: [String: String] = [:]
        for line in headText.components(separatedBy: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (headers, blank.map { Data(data[$0.upperBound...]) } ?? Data())
    }
}
