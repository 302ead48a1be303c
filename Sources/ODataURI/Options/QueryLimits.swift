/// Bounds on what one request may ask for, so that no request can make the gateway do
/// unbounded work. Exceeding one is a 400 whose message names the bound.
public struct QueryLimits: Sendable {
    public var maxURILength = 8192
    public var maxExpandDepth = 6
    public var maxExpandBreadth = 20
    public var maxTop = 10_000
    public var expression = ExpressionLimits()

    // Bounds on what a request reads or writes, after WCF Data Services' DataServiceConfiguration.
    // They hold the memory of one request: a response is refused rather than cut short.

    /// The entities one expanded collection may hold (WCF's MaxResultsPerCollection).
    public var maxResultsPerCollection = 1000
    /// The entities one response may hold, top-level and expanded together, each counted as
    /// often as it is written: `$expand` back and forth multiplies them.
    public var maxEntitiesPerResponse = 5000
    /// The operations of one `$batch`, change-set members included.
    public var maxBatchCount = 1000
    /// The operations of one change set: it holds the write gate, and so every other writer,
    /// until its last operation is done.
    public var maxChangesetCount = 100
    /// The entities one create may insert, the top-level one and those inline (deep insert).
    public var maxObjectCountOnInsert = 100
    /// The bytes of a `$batch` response: each operation is bounded by the limits above, this
    /// bounds them together. Operations past it are answered with a 400 instead.
    public var maxBatchResponseBytes = 16 << 20

    public init() {}
}

/// A request past one of the `QueryLimits` that bound what it reads or writes: a 400 whose
/// message names the limit, its value and the `serve` option that sets it.
public struct LimitExceeded: Error, CustomStringConvertible, Sendable, Equatable {
    /// The limits, by the name of the `serve` option that sets each.
    public enum Limit: String, Sendable {
        case resultsPerCollection = "max-results-per-collection"
        case entitiesPerResponse = "max-entities-per-response"
        case batchCount = "max-batch-count"
        case changesetCount = "max-changeset-count"
        case objectCountOnInsert = "max-object-count-on-insert"
        case batchResponseBytes = "max-batch-response-bytes"
    }

    public let limit: Limit
    public let message: String

    /// "`subject` more than `value` entities, the limit of ... (--option value)." and `advice`.
    public init(_ limit: Limit, value: Int, subject: String, advice: String? = nil) {
        self.limit = limit
        let (name, unit): (String, String)
        switch limit {
        case .resultsPerCollection: (name, unit) = ("the limit of entities per expanded collection", "entities")
        case .entitiesPerResponse: (name, unit) = ("the limit of entities per response", "entities")
        case .batchCount: (name, unit) = ("the limit of operations per $batch", "operations")
        case .changesetCount: (name, unit) = ("the limit of operations per change set", "operations")
        case .objectCountOnInsert: (name, unit) = ("the limit of entities per insert", "entities")
        case .batchResponseBytes: (name, unit) = ("the limit of bytes per $batch response", "bytes")
        }
        message = "\(subject) more than \(value) \(unit), \(name) (--\(limit.rawValue) \(value))." + (advice.map { " " + $0 } ?? "")
    }

    public var description: String { message }
}
