import EDM
import ODataURI

/// What one response may still hold (`QueryLimits.maxEntitiesPerResponse` and
/// `maxResultsPerCollection`), counted while it is read, so that a request past a limit is
/// refused before its response, or the rows kept for it, are whole: never cut short.
public struct EntityBudget: Sendable {
    public let maxEntities: Int
    public let maxPerCollection: Int
    /// The entities counted so far, each as often as the response writes it.
    public private(set) var spent = 0

    public init(maxEntities: Int, maxPerCollection: Int) {
        self.maxEntities = maxEntities
        self.maxPerCollection = maxPerCollection
    }

    /// No limit: for reads that are not a response's (a write's own lookups, tests).
    public static let unlimited = EntityBudget(maxEntities: .max, maxPerCollection: .max)

    public init(_ limits: QueryLimits) {
        self.init(maxEntities: limits.maxEntitiesPerResponse, maxPerCollection: limits.maxResultsPerCollection)
    }

    /// Counts `count` more entities of the response.
    @inline(__always)
    public mutating func spend(_ count: Int) throws(LimitExceeded) {
        let (total, overflow) = spent.addingReportingOverflow(count)
        guard !overflow, total <= maxEntities else { throw tooManyEntities }
        spent = total
    }

    /// Refuses the response when `count` more entities would not fit, without counting them.
    func checkRoom(for count: Int) throws(LimitExceeded) {
        guard count <= maxEntities - spent else { throw tooManyEntities }
    }

    /// Refuses an expanded collection of `count` entities when that is past the limit.
    @inline(__always)
    func checkCollection(_ count: Int, along navigation: NavigationProperty) throws(LimitExceeded) {
        guard count <= maxPerCollection else {
            throw LimitExceeded(.resultsPerCollection, value: maxPerCollection,
                                subject: "The expanded collection \(navigation.name) of a \(navigation.source.name) holds",
                                advice: "Read it page by page at its own URI instead.")
        }
    }

    private var tooManyEntities: LimitExceeded {
        LimitExceeded(.entitiesPerResponse, value: maxEntities, subject: "The response would hold",
                      advice: "Ask for less with $top, $filter or a shorter $expand.")
    }
}
