import Foundation

/// The Content-Type a write body must have (415 otherwise): JSON for entities, properties and
/// links (this service reads verbose JSON, not Atom), plain text or bytes for a raw `$value`.
/// A body without a Content-Type is taken as what the resource expects.
enum RequestBodyType {
    /// `application/json` with any parameters (`;odata=verbose`, `;charset=utf-8`).
    static func checkJSON(_ request: HTTPRequest) throws(ServiceError) {
        guard let type = essence(request) else { return }
        guard type == "application/json" else {
            throw .unsupportedMediaType("The Content-Type '\(request.header("Content-Type") ?? "")' is not supported for this request; send the body as application/json (OData verbose JSON).")
        }
    }

    /// A raw property value: `text/plain` (or another text type) for text, and
    /// `application/octet-stream` for binary data.
    static func checkRaw(_ request: HTTPRequest) throws(ServiceError) {
        guard let type = essence(request) else { return }
        guard type.hasPrefix("text/") || type == "application/octet-stream" else {
            throw .unsupportedMediaType("The Content-Type '\(request.header("Content-Type") ?? "")' is not supported for a $value body; send text/plain, or application/octet-stream for binary data.")
        }
    }

    /// The lower-cased `type/subtype` of the request's Content-Type, nil when there is none.
    static func essence(_ request: HTTPRequest) -> String? {
        guard let header = request.header("Content-Type") else { return nil }
        let type = header.split(separator: ";", maxSplits: 1).first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
        return type.isEmpty ? nil : type
    }
}
