import HTTPCore

/// The scheme and host a client used, as a reverse proxy reports them (`--trust-forwarded`):
/// RFC 7239 `Forwarded` (its first element, the proxy nearest the client), else the de-facto
/// `X-Forwarded-Proto` and `X-Forwarded-Host`. Only for a service behind a proxy that sets
/// them: a client reaching the service directly could otherwise name any origin.
struct ForwardedOrigin: Equatable {
    var scheme: String
    /// nil when the proxy did not report it: the Host header stands.
    var host: String?

    static let fields = ["forwarded", "x-forwarded-proto", "x-forwarded-host"]

    /// nil when the request carries none of the fields.
    init?(_ request: HTTPRequest) throws(ServiceError) {
        try self.init(forwarded: request.header("forwarded"), proto: request.header("x-forwarded-proto"),
                      host: request.header("x-forwarded-host"))
    }

    init?(forwarded: String?, proto: String?, host: String?) throws(ServiceError) {
        var scheme: String?
        var forwardedHost: String?
        if let forwarded, let first = Self.firstItem(forwarded) {
            for pair in first.split(separator: ";") {
                guard let equals = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<equals].trimmingSpaces.lowercased()
                var value = pair[pair.index(after: equals)...].trimmingSpaces
                if value.count >= 2, value.first == "\"", value.last == "\"" { value = value.dropFirst().dropLast() }
                if name == "proto" { scheme = String(value) }
                if name == "host" { forwardedHost = String(value) }
            }
        } else {
            scheme = proto.flatMap(Self.firstItem).map(String.init)
            forwardedHost = host.flatMap(Self.firstItem).map(String.init)
        }
        guard scheme != nil || forwardedHost != nil else { return nil }
        let lowered = scheme?.lowercased() ?? "http"
        guard lowered == "http" || lowered == "https" else {
            throw .badRequest("The forwarded scheme '\(scheme ?? "")' is neither http nor https.")
        }
        self.scheme = lowered
        self.host = forwardedHost.flatMap { $0.isEmpty ? nil : $0 }
    }

    private static func firstItem(_ list: String) -> Substring? {
        let first = (list.split(separator: ",", omittingEmptySubsequences: false).first ?? "").trimmingSpaces
        return first.isEmpty ? nil : first
    }
}

extension Substring {
    fileprivate var trimmingSpaces: Substring {
        var text = self
        while text.first == " " || text.first == "\t" { text = text.dropFirst() }
        while text.last == " " || text.last == "\t" { text = text.dropLast() }
        return text
    }
}
