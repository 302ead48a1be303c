/// A failure of the storage engine, as the OData layers need to know it: by the response it
/// earns, whichever engine reported it. An engine's errors conform (SQLite: `SQLiteError`).
public protocol StoreFailure: Error, CustomStringConvertible, Sendable {
    /// The database is held by another writer, or locked: the same request may succeed later (503).
    var isBusy: Bool { get }
    /// The change was rolled back for a reason outside it, such as another write of its commit
    /// group failing, a serialization failure or a deadlock: the same write may succeed when
    /// tried again (503).
    var isAborted: Bool { get }
    /// The constraint the change breaks, when the engine refused it for one (409); nil otherwise.
    var violatedConstraint: ViolatedConstraint? { get }
    /// The change holds a value the engine cannot store at all, such as text with U+0000 in
    /// PostgreSQL: the request's fault, refused before anything is written (400).
    var rejectsValue: Bool { get }
    /// The engine's own words, without the statement: what a client may be told.
    var message: String { get }
}

/// The kind of constraint an engine enforced, as a write's 409 names it.
public enum ViolatedConstraint: Sendable, Equatable {
    /// A primary key or unique index: the key is taken.
    case uniqueKey
    /// A foreign key: the change breaks a relationship.
    case foreignKey
    /// Any other (NOT NULL, CHECK).
    case other
}

extension StoreFailure {
    public var rejectsValue: Bool { false }

    /// The change breaks a constraint the database enforces (409).
    public var isConstraintViolation: Bool { violatedConstraint != nil }
}

/// The store found itself in a state it cannot explain (a row just inserted cannot be read
/// back): an internal error (500), whichever engine is underneath.
public struct StoreInconsistency: StoreFailure {
    public let message: String
    public var isBusy: Bool { false }
    public var isAborted: Bool { false }
    public var violatedConstraint: ViolatedConstraint? { nil }
    public var description: String { "the store is inconsistent: " + message }

    public init(message: String) { self.message = message }
}
