#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The POSIX threads the store runs its own work on (the write gate's committer): joinable, so that their owners can wait for them when they close.
enum POSIXThread {
    /// Starts a thread that runs `body`, which keeps what it captures alive until it returns;
    /// nil when the system refuses a thread.
    static func start(_ body: @escaping () -> Void) -> pthread_t? {
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        var thread = pthread_t()
        guard pthread_create(&thread, nil, { context in
            Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
            return nil
        }, context) == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return nil
        }
        return thread
    }

    /// The realtime clock `seconds` from now, as `pthread_cond_timedwait` takes it.
    static func deadline(after seconds: Double) -> timespec {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        let nanoseconds = Int(time.tv_nsec) + Int(seconds * 1e9)
        time.tv_sec += nanoseconds / 1_000_000_000
        time.tv_nsec = nanoseconds % 1_000_000_000
        return time
    }

    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }
}
