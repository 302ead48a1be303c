#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A lock shared by the connections of one process to one database file, taken around each
/// write transaction. SQLite admits one writer at a time anyway; queueing on a mutex hands the
/// lock over as soon as it is free, where SQLite's busy handler would poll with sleeps.
/// Other processes writing the same file are still handled by the busy timeout.
///
/// With a `ReadLockAnchor`, the gate releases the anchor's read lock for the whole write
/// transaction, so that its commit-time checkpoint and the WAL's restart are never held back.
/// Both happen outside the mutex, which every writer waits for: the anchor counts the writes
/// pending and takes its lock again only when none is.
public final class WriteGate: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private let anchor: ReadLockAnchor?

    public init(anchor: ReadLockAnchor? = nil) {
        self.anchor = anchor
        pthread_mutex_init(&mutex, nil)
    }

    deinit { pthread_mutex_destroy(&mutex) }

    public func run<T>(_ body: () throws -> T) rethrows -> T {
        anchor?.suspend()
        pthread_mutex_lock(&mutex)
        defer {
            pthread_mutex_unlock(&mutex)
            anchor?.resume()
        }
        return try body()
    }
}
