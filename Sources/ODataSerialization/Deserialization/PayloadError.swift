/// A request body that cannot be applied, with a message that names the property (when there
/// is one) and what is wrong with it. The processor answers it with 400 Bad Request.
public struct PayloadError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    /// The property or navigation property at fault, when the problem is one member's.
    public let propertyName: String?

    public init(_ message: String, propertyName: String? = nil) {
        self.message = message
        self.propertyName = propertyName
    }

    public var description: String { message }

    /// The error of a body that is not JSON at all.
    static func malformed(_ error: JSONParseError) -> PayloadError {
        switch error.kind {
        case .invalidUTF8:
            return PayloadError("The request body is not valid UTF-8: \(error.message) (at byte \(error.offset)).")
        case .syntax:
            return PayloadError("The request body is malformed JSON: \(error.message) (at byte \(error.offset)).")
        }
    }

    /// The same error, said of an entity nested inside a navigation property of another.
    func nested(in navigation: String, item: Int?) -> PayloadError {
        let place = item.map { "In navigation property '\(navigation)', item \($0 + 1): " } ?? "In navigation property '\(navigation)': "
        return PayloadError(place + message, propertyName: propertyName)
    }
}
