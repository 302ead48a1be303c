#if canImport(Glibc)
import Glibc
#endif

/// How a transaction isolates its reads from other gateways' writes.
public enum PostgresTransactionMode: Sendable {
    /// Every read of one request in one snapshot, and no writes: `REPEATABLE READ READ ONLY`.
    case readSnapshot
    /// A request's or change set's writes: `READ COMMITTED`. Every entity a write checks and
    /// changes is first read `FOR UPDATE` (`PostgresDialect.rowLockClause`), so its check (an
    /// ETag) and its change are one atomic step: a second writer of the same row waits for the
    /// first to end and then sees its change (a 412), instead of failing to serialize (40001)
    /// as under `REPEATABLE READ`, where change sets touching several rows under load used up
    /// their retries. A `$batch` change set locks the rows it addresses by key in one order
    /// before its first operation (`EntityWriting.lockForWrite`), so change sets do not deadlock
    /// over those; deadlocks that remain (40P01) are retried.
    case write

    var begin: String {
        switch self {
        case .readSnapshot: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
        case .write: "BEGIN ISOLATION LEVEL READ COMMITTED"
        }
    }
}

extension PostgresConnection {
    /// How often a transaction that failed to serialize, or deadlocked, is run again before
    /// its failure is reported (as busy: 503 with Retry-After).
    public static let serializationRetries = 4

    /// Runs `body` in one transaction and commits it; rolls it back when `body` throws. A
    /// serialization failure or deadlock (in `body` or at commit) runs `body` again, up to
    /// `retries` more times, after a short random pause; `body` must therefore do nothing
    /// outside the transaction that a second run would repeat. A lost connection is not retried:
    /// whether its commit happened is unknown, and the request is answered 503.
    /// `synchronous_commit` is the server's (on by default): when this returns, the commit is durable.
    public func transaction<T>(_ mode: PostgresTransactionMode, retries: Int = serializationRetries,
                               _ body: () throws -> T) throws -> T {
        var attempt = 0
        while true {
            do {
                try execute(mode.begin)
                let result: T
                do {
                    result = try body()
                } catch {
                    rollBack()
                    throw error
                }
                try execute("COMMIT")
                return result
            } catch let error as PostgresError where error.isSerializationFailure && attempt < retries {
                if isInTransaction { rollBack() }
                attempt += 1
                Self.pause(attempt: attempt)
            }
        }
    }

    /// Ends a failed transaction; a broken connection has none left to end.
    func rollBack() {
        guard !isBroken, isInTransaction else { return }
        try? execute("ROLLBACK")
    }

    /// Up to 2^attempt milliseconds, at random, so that two gateways that collided do not collide again.
    private static func pause(attempt: Int) {
        let limit = UInt32(1000 << min(attempt, 6))
        usleep(UInt32.random(in: 0...limit))
    }
}
