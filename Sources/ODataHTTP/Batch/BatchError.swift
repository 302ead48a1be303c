/// A `$batch` request body that cannot be read as MS-ODATA 2.2.7.6 multipart/mixed. The
/// processor answers it with 400 Bad Request before running any operation, so a malformed
/// batch changes nothing.
public struct BatchError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}
