import Synchronization

/// The bytes that buffered request bodies may hold across the whole process. A body takes its
/// room before it is read (its Content-Length), or as it grows (a chunked body), and gives it
/// back when its request is over; a body that finds no room is not kept, and its request reaches
/// the handler as `TransportCondition.bodyMemoryExhausted`.
/// One slow client per connection could otherwise hold the process's memory a body at a time.
final class BodyMemoryBudget: Sendable {
    let capacity: Int
    private let used = Atomic<Int>(0)

    init(capacity: Int) { self.capacity = capacity }

    /// Takes `bytes` of room, or none and returns false when that would pass the capacity.
    func reserve(_ bytes: Int) -> Bool {
        var current = used.load(ordering: .relaxed)
        while true {
            guard bytes <= capacity - current else { return false }
            let (exchanged, original) = used.compareExchange(expected: current, desired: current + bytes, ordering: .relaxed)
            if exchanged { return true }
            current = original
        }
    }

    func release(_ bytes: Int) {
        guard bytes > 0 else { return }
        used.subtract(bytes, ordering: .relaxed)
    }
}
