import HTTPCore
import Logging

/// The pipeline's first step when an access file or a rate limit is in force: who is calling
/// (`AccessControl`), within which rate, and which role's service answers. Refusals are thrown
/// and become responses in `errorResponse`, like any failure.
extension ODataService {
    func handleAdmitted(_ request: HTTPRequest) -> HTTPResponse {
        var caller = "-"
        var response: HTTPResponse
        do {
            // A browser's CORS preflight carries no credentials, and answers nothing but headers.
            let admitted = request.method == "OPTIONS" ? nil : try admit(request)
            caller = admitted?.name ?? caller
            let service = admitted?.service ?? self
            response = service.workers.withValue { worker in
                worker.begin()
                return service.respond(to: request, worker: worker)
            }
        } catch {
            response = errorResponse(for: error, request: request)
        }
        finish(&response, for: request, caller: caller)
        return response
    }

    private func admit(_ request: HTTPRequest) throws(AccessError) -> AccessControl.Caller {
        let caller = try access?.authenticate(request)
            ?? AccessControl.Caller(name: "anonymous", service: nil, rateKey: AccessControl.addressKey(request), rateLimit: nil)
        if let rate = caller.rateLimit ?? configuration.rateLimit, let wait = rateLimiter.take(caller.rateKey, rate: rate) {
            throw AccessError.tooManyRequests(retryAfter: wait)
        }
        return caller
    }

    /// Writes at info, reads at debug: who (the key's name, never the key), from where, what,
    /// and the answer. Never a header or a body.
    func auditLog(_ request: HTTPRequest, _ response: HTTPResponse, caller: String) {
        let isRead = request.method == "GET" || request.method == "HEAD" || request.method == "OPTIONS"
        let level: Logger.Level = isRead ? .debug : .info
        guard logger.logLevel <= level else { return }
        logger.log(level: level, "\(caller) \(request.clientAddress ?? "-") \(request.method) \(Self.loggedTarget(request)) \(response.status)")
    }

    /// The target as logs show it: a key sent in the query string (refused) is blanked.
    static func loggedTarget(_ request: HTTPRequest) -> String {
        let query = request.query
        guard !query.isEmpty, AccessControl.keyParameter(in: query) != nil else { return request.target }
        return String(request.path) + "?(a query with a key, not logged)"
    }
}


