import HTTPCore

/// Cross-origin resource sharing, so that a browser application served from another origin
/// (a SAPUI5 or plain JavaScript front end) can use the service. Off unless origins are allowed.
enum CrossOrigin {
    static let methods = "GET, HEAD, POST, PUT, MERGE, PATCH, DELETE, OPTIONS"
    static let exposedHeaders = "DataServiceVersion, ETag, Location"
    /// How long a browser may reuse a preflight's answer, in seconds.
    static let preflightMaxAge = "600"

    /// The origin to echo, when the request's Origin is allowed. With credentials allowed the
    /// origin is always echoed, never `*`: browsers refuse credentialed answers to `*`.
    static func allowedOrigin(for request: HTTPRequest, allowedOrigins: [String], credentials: Bool = false) -> String? {
        guard let origin = request.header(.origin) else { return nil }
        if allowedOrigins.contains("*") { return credentials ? nil : "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    static func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest, allowedOrigins: [String], credentials: Bool) {
        // The answer depends on Origin whenever origins are listed, even for a request without
        // one: a cache must not give its answer to a page of a listed origin.
        if !allowedOrigins.contains("*") { addVary("Origin", to: &response) }
        guard let origin = allowedOrigin(for: request, allowedOrigins: allowedOrigins, credentials: credentials) else { return }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", exposedHeaders))
        if credentials { response.headers.append(("Access-Control-Allow-Credentials", "true")) }
    }

    /// Adds `field` to the response's Vary field (one field, `Vary: Accept, Origin`), or adds one.
    static func addVary(_ field: String, to response: inout HTTPResponse) {
        if let index = response.headers.firstIndex(where: { ASCIICase.equalIgnoringCase($0.0, "Vary") }) {
            response.headers[index].1 += ", " + field
        } else {
            response.headers.append(("Vary", field))
        }
    }

    /// The answer to OPTIONS: the methods the service takes and, for an allowed origin's
    /// preflight, the headers its request may send and how long the answer holds.
    static func preflight(_ request: HTTPRequest, allowedOrigins: [String], credentials: Bool) -> HTTPResponse {
        var response = HTTPResponse(status: 204, headers: [("Allow", methods)])
        if allowedOrigin(for: request, allowedOrigins: allowedOrigins, credentials: credentials) != nil {
            response.headers.append(("Access-Control-Allow-Methods", methods))
            if let requested = request.header(.accessControlRequestHeaders) {
                response.headers.append(("Access-Control-Allow-Headers", requested))
            }
            response.headers.append(("Access-Control-Max-Age", preflightMaxAge))
        }
        return response
    }
}
