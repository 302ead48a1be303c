/// A request refused by the access rules; answered through `ODataResponseError` like any failure.
struct AccessError: Error, ODataResponseError {
    let status: Int
    let code: String
    let message: String
    var headers: [(String, String)] = []

    /// No valid key (or none where the anonymous role cannot do this): 401, with the two schemes
    /// a client may answer with.
    static func unauthenticated(_ message: String) -> AccessError {
        AccessError(status: 401, code: "Unauthorized", message: message,
                    headers: [("WWW-Authenticate", "Basic realm=\"OData\", charset=\"UTF-8\""), ("WWW-Authenticate", "Bearer realm=\"OData\"")])
    }

    static func forbidden(_ message: String) -> AccessError { AccessError(status: 403, code: "Forbidden", message: message) }

    static func tooManyRequests(retryAfter seconds: Int) -> AccessError {
        AccessError(status: 429, code: "TooManyRequests", message: "Too many requests; retry after \(seconds) s.",
                    headers: [("Retry-After", String(seconds))])
    }

    static func keyInQuery(_ name: String) -> AccessError {
        AccessError(status: 400, code: "BadRequest",
                    message: "API keys are not accepted in the query string ('\(name)'), where logs keep them; send Authorization: Bearer or X-API-Key.")
    }
}
