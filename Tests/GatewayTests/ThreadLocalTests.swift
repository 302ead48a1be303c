import Foundation
import HTTPCore
import Synchronization
import Testing

/// `ThreadLocal` keeps one value per thread (each server thread's `WorkerContext`). `withValue` lends that value without a reference of its own; it
/// must still be the thread's value, made once, and kept after the lending.
@Suite struct ThreadLocalTests {
    final class Counter: Sendable {
        let serial: Int
        init(serial: Int) { self.serial = serial }
    }

    @Test func eachThreadGetsItsOwnValueMadeOnce() {
        let made = Mutex(0)
        let local = ThreadLocal { Counter(serial: made.withLock { count in count += 1; return count }) }

        // First use on this thread, lent: made then, and the same value afterwards however asked.
        let first = local.withValue { $0.serial }
        #expect(local.withValue { $0.serial } == first)
        #expect(local.get().serial == first)
        #expect(made.withLock { $0 } == 1)

        // Another thread gets a value of its own, whether it asks by `withValue` or `get` first.
        let others = Mutex<[Int]>([])
        let done = DispatchGroup()
        for index in 0..<2 {
            done.enter()
            Thread.detachNewThread {
                let serial = index == 0 ? local.withValue { $0.serial } : local.get().serial
                let again = local.withValue { $0.serial }
                if serial == again { others.withLock { $0.append(serial) } }
                done.leave()
            }
        }
        done.wait()
        let serials = others.withLock { $0 }
        #expect(serials.count == 2, "each thread saw one value, every time it asked")
        #expect(Set(serials + [first]).count == 3, "three threads, three values")
        #expect(made.withLock { $0 } == 3)
    }

    @Test func aLentValueOutlivesTheLending() {
        let local = ThreadLocal { Counter(serial: 7) }
        // Made by a first use, so that the next is a lending from the thread's slot.
        _ = local.withValue { $0.serial }
        weak var lent: Counter?
        local.withValue { lent = $0 }
        // The thread's slot still holds it: lending took no reference that it then dropped.
        #expect(lent?.serial == 7)
        #expect(local.withValue { $0 } === lent)
    }
}
