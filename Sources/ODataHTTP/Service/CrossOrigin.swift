import HTTPCore

/// Cross-origin resource sharing, so that a browser application served from another origin
/// (a SAPUI5 or plain JavaScript front end) can use the service. Off unless origins are allowed.
enum CrossOrigin {
    static let methods = "GET, HEAD, POST, PUT, MERGE, PATCH, DELETE, OPTIONS"
    static let exposedHeaders = "DataServiceVersion, ETag, Location"

    /// The origin to echo, when the request's Origin is allowed.
    static func allowedOrigin(for request: HTTPRequest, allowedOrigins: [String]) -> String? {
        guard let origin = request.header(.origin) else { return nil }
        if allowedOrigins.contains("*") { return "*" }
        return allowedOrigins.contains(origin) ? origin : nil
    }

    static func addHeaders(to response: inout HTTPResponse, for request: HTTPRequest, allowedOrigins: [String]) {
        guard let origin = allowedOrigin(for: request, allowedOrigins: allowedOrigins) else { return }
        response.headers.append(("Access-Control-Allow-Origin", origin))
        response.headers.append(("Access-Control-Expose-Headers", exposedHeaders))
        if origin != "*" { response.headers.append(("Vary", "Origin")) }
    }

    /// The answer to OPTIONS: the methods the service takes and, for an allowed origin's
    /// preflight, the headers its request may send.
    static func preflight(_ request: HTTPRequest, allowedOrigins: [String]) -> HTTPResponse {
        var response = HTTPResponse(status: 204, headers: [("Allow", methods)])
        if allowedOrigin(for: request, allowedOrigins: allowedOrigins) != nil {
            response.headers.append(("Access-Control-Allow-Methods", methods))
            if let requested = request.header(.accessControlRequestHeaders) {
                response.headers.append(("Access-Control-Allow-Headers", requested))
            }
            response.headers.append(("Access-Control-Max-Age", "600"))
        }
        return response
    }
}
