/// A write the store refuses, with the HTTP meaning of the refusal and a message for the client
/// that names the entity, property or relationship at fault.
public struct WriteError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        /// 400: the request asks for something the schema does not allow (a required
        /// relationship left empty, a reference to an entity that does not exist).
        case badRequest
        /// 404: the entity the request addresses does not exist.
        case notFound
        /// 409: the request clashes with what is stored (a key already taken, an entity others
        /// still refer to).
        case conflict
        /// 412: the entity changed since the client read it (If-Match).
        case preconditionFailed
    }

    public let kind: Kind
    public let message: String

    public init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }

    public static func badRequest(_ message: String) -> WriteError { WriteError(.badRequest, message) }
    public static func conflict(_ message: String) -> WriteError { WriteError(.conflict, message) }

    public var description: String { message }
}
