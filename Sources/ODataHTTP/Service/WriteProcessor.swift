// PLACEHOLDER — owned by the writes work (issue 4), which replaces this file.

extension ODataService {
    func write(_ context: RequestContext, method: String) throws -> HTTPResponse {
        throw ServiceError(status: 501, code: "NotImplemented", message: "\(method) is not implemented yet; this service is read-only for now")
    }
}
