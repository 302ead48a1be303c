/// A request URI that cannot be served, with the HTTP status it earns and a message that says
/// what is wrong and where.
public struct URIError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// 400: malformed syntax, an invalid literal, a type error, a bound exceeded.
        case badRequest
        /// 404: an unknown entity set, key, property or navigation property.
        case notFound
        /// 405: the resource exists but does not take that method.
        case methodNotAllowed
        /// 501: valid OData that this service does not implement.
        case notImplemented
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func badRequest(_ message: String) -> URIError { URIError(.badRequest, message) }
    public static func notFound(_ message: String) -> URIError { URIError(.notFound, message) }

    public var description: String { message }
}
