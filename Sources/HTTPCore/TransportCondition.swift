/// Why the server hands the handler a request it did not read as it reads any other. The handler
/// answers with an error for it (`HTTPRequest.transportCondition`) and reads nothing else of the
/// request: its body is empty whatever the client sent.
public enum TransportCondition: Sendable, Equatable {
    /// The body is larger than `HTTPServer.Configuration.maxBodySize`, declared so or as it
    /// arrived; the server did not keep it.
    case bodyTooLarge(limit: Int)
    /// The process's buffered bodies left no room for this one (`BodyMemoryBudget`); the server
    /// did not keep it. Worth retrying shortly.
    case bodyMemoryExhausted
    /// The server refused the request on its head alone, before any body.
    case framing(FramingViolation)

    /// The status the answer has.
    public var status: Int {
        switch self {
        case .bodyTooLarge: 413
        case .bodyMemoryExhausted: 503
        case .framing(let violation): violation.status
        }
    }

    /// What the client is told, in words.
    public var message: String {
        switch self {
        case .bodyTooLarge: "The request body is larger than the limit of this service."
        case .bodyMemoryExhausted: "The service is holding as many request bodies as it has memory for; retry the request shortly."
        case .framing(let violation): violation.message
        }
    }
}
