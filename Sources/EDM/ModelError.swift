/// Why a schema could not be turned into a model. The message names the element at fault.
public struct ModelError: Error, CustomStringConvertible, Sendable {
    public let message: String

    public init(_ message: String) { self.message = message }

    public var description: String { message }
}
