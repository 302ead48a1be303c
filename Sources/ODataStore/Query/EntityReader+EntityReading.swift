import EDM
import ODataURI

/// The reads of one connection: each request's reads in the connection's read scope, which
/// holds the engine's snapshot policy.
extension EntityReader: EntityReading {
    public func readScope<T>(_ shape: ReadScopeShape, _ body: () throws -> T) throws -> T {
        try connection.readScope(shape, body)
    }
}
