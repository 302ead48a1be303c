/// A failure of the storage engine, as the OData layers need to know it: by the response it
/// earns, whichever engine reported it.
public protocol StoreFailure: Error, CustomStringConvertible, Sendable {
    /// The database is held by another writer, or locked: the same request may succeed later (503).
    var isBusy: Bool { get }
    /// The change was rolled back for a reason outside it, such as another write of its commit
    /// group failing: the same write may succeed when tried again (503).
    var isAborted: Bool { get }
    /// The change breaks a constraint the database enforces (409).
    var isConstraintViolation: Bool { get }
    /// The engine's own words, without the statement: what a client may be told.
    var message: String { get }
}

extension SQLiteError: StoreFailure {}
