import Foundation

/// The error a data service sends in its response body:
/// `{"error":{"code":"...","message":{"lang":"en-US","value":"..."}}}`.
public struct ODataError: Sendable, Equatable, Decodable {
    public var code: String
    public var message: String
    public var language: String?
    /// The `innererror` member, as text, when the server sends one.
    public var innerError: String?

    public init(code: String, message: String, language: String? = nil, innerError: String? = nil) {
        self.code = code
        self.message = message
        self.language = language
        self.innerError = innerError
    }

    /// The error in a response body, or nil if the body is not an OData JSON error.
    public static func decode(from data: Data) -> ODataError? {
        try? JSONDecoder().decode(Envelope.self, from: data).error
    }

    private struct Envelope: Decodable {
        var error: ODataError
    }

    private enum CodingKeys: String, CodingKey {
        case code, message, innererror
    }

    private struct Message: Decodable {
        var lang: String?
        var value: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decodeIfPresent(String.self, forKey: .code) ?? ""
        // MS-ODATA writes the message as {"lang":..., "value":...}; some servers write a plain string.
        if let message = try? container.decode(Message.self, forKey: .message) {
            self.message = message.value
            language = message.lang
        } else {
            message = try container.decodeIfPresent(String.self, forKey: .message) ?? ""
        }
        innerError = try? container.decodeIfPresent(JSONValue.self, forKey: .innererror).map { "\($0)" }
    }
}
