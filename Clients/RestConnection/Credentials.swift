import Foundation

/// How a connection proves who it is: given once, sent with every request, typed calls included.
public enum Credentials: Sendable, Hashable {
    /// `Authorization: Bearer KEY`.
    case bearer(String)
    /// `X-API-Key: KEY`.
    case apiKey(String)
    /// `Authorization: Basic ...` with a user and a password; for an API key, the user is the
    /// key's name and the password the key.
    case basic(user: String, password: String)

    /// The header field that carries the credentials.
    var header: (name: String, value: String) {
        switch self {
        case .bearer(let key):
            return ("Authorization", "Bearer \(key)")
        case .apiKey(let key):
            return ("X-API-Key", key)
        case .basic(let user, let password):
            return ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
        }
    }
}
