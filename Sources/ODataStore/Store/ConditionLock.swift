#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX mutex with one condition variable: the state the store shares between threads (the
/// write gate and its committer, a pending commit and those waiting for it) is kept under one. A class, so that the mutex and the condition never move in
/// memory.
package final class ConditionLock: @unchecked Sendable {
    private var mutex = pthread_mutex_t()
    private var condition = pthread_cond_t()

    package init() {
        pthread_mutex_init(&mutex, nil)
        pthread_cond_init(&condition, nil)
    }

    deinit {
        pthread_cond_destroy(&condition)
        pthread_mutex_destroy(&mutex)
    }

    package func lock() { pthread_mutex_lock(&mutex) }

    /// Takes the lock when it is free; false, without waiting, when it is not.
    package func tryLock() -> Bool { pthread_mutex_trylock(&mutex) == 0 }

    package func unlock() { pthread_mutex_unlock(&mutex) }

    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// With the lock held: releases it until signalled (or woken spuriously), then takes it again.
    package func wait() { pthread_cond_wait(&condition, &mutex) }

    /// `wait`, until the realtime clock reaches `deadline` at the latest (`POSIXThread.deadline`);
    /// false when it did.
    package func wait(until deadline: timespec) -> Bool {
        var deadline = deadline
        return pthread_cond_timedwait(&condition, &mutex, &deadline) != ETIMEDOUT
    }

    package func signal() { pthread_cond_signal(&condition) }

    package func broadcast() { pthread_cond_broadcast(&condition) }
}
