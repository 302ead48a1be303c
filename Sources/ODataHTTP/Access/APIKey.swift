import Crypto
import Foundation

// Unsafe code, as little as swift-crypto allows: a `SymmetricKey`'s random bytes are readable
// only through `withUnsafeBytes`, and are copied out at once.

/// API keys: 32 random bytes from the system's generator, stored as HMAC-SHA256 of the key under
/// a random salt. A key has 256 bits of entropy, so a fast salted hash is enough (a slow one
/// defends guessable passwords) and costs each request little.
public enum APIKey {
    /// A new key, base64url without padding (43 characters, safe in headers and shells). Never
    /// one that starts with `-`, which a command line reads as an option (`dealer --api-key -x…`
    /// fails); drawing again keeps the rest uniform and costs 0.02 bits.
    public static func generate() -> String {
        while true {
            let key = base64URL(SymmetricKey(size: .bits256).withUnsafeBytes { Data($0) })
            if key.first != "-" { return key }
        }
    }

    static func newSalt() -> Data { SymmetricKey(size: .bits128).withUnsafeBytes { Data($0) } }

    static func hash(_ key: String, salt: Data) -> Data {
        Data(HMAC<SHA256>.authenticationCode(for: Data(key.utf8), using: SymmetricKey(data: salt)))
    }

    /// Whether `key` is the one hashed into `stored`, compared in constant time (swift-crypto).
    static func matches(_ key: String, salt: Data, stored: Data) -> Bool {
        HMAC<SHA256>.isValidAuthenticationCode(stored, authenticating: Data(key.utf8), using: SymmetricKey(data: salt))
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A new key and its entry for the access file; the key goes to the caller alone.
    public static func entry(name: String, role: String, rateLimit: Double?, now: Date = Date()) -> (key: String, entry: AccessFile.Key) {
        let key = generate()
        let salt = newSalt()
        let created = ISO8601DateFormatter().string(from: now)
        return (key, AccessFile.Key(name: name, role: role, created: created, salt: salt.base64EncodedString(),
                                    hmacSHA256: hash(key, salt: salt).base64EncodedString(), rateLimit: rateLimit))
    }
}
