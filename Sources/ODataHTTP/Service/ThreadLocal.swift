#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A value per thread, created on first use in that thread and released when the thread ends.
/// The service keeps each server thread's `WorkerContext` this way.
public final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    /// A `let`: `get` runs on every request, and a `var` of a class costs a runtime exclusivity
    /// check on each read.
    private let key: pthread_key_t
    private let make: () -> Value

    public init(_ make: @escaping () -> Value) {
        self.make = make
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            // Runs when a thread that holds a value exits.
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        self.key = key
    }

    deinit {
        // pthread_key_delete drops values without running their destructor, so an owner must
        // outlive the threads that use it (a server stops its threads first); its own value on
        // this thread is released here rather than dropped.
        if let pointer = pthread_getspecific(key) {
            pthread_setspecific(key, nil)
            Unmanaged<Value>.fromOpaque(pointer).release()
        }
        pthread_key_delete(key)
    }

    /// `body` with the calling thread's value, lent without a retain: the thread's slot holds it
    /// until the thread ends, and only this thread could replace it. For what a request does
    /// with the value and lets go of: `get()` hands out a reference of its own, a retain and
    /// release each time.
    @inline(__always)
    public func withValue<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        if let pointer = pthread_getspecific(key) {
            return try Unmanaged<Value>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
        }
        return try body(get())
    }

    public func get() -> Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
