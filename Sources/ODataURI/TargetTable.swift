/// `ParseCache`'s table of kept targets by fingerprint: open addressing with linear probing,
/// each slot holding the fingerprint beside its element. A hit reads one slot, where a
/// `Dictionary` read the key and the value from two arrays: with a thousand targets kept, the
/// slot of the one a request finds is out of the processor's caches, and each array was one
/// wait more (perf put most of the dictionary's lookup on its key load).
///
/// Slots are at least twice the capacity, and nothing is removed but all at once (`removeAll`),
/// so probing needs no tombstones. Where a fingerprint lands is mixed with a seed drawn for each
/// table, so that targets chosen to share bits of their fingerprints cannot make long runs.
/// Not thread-safe, like the cache it serves.
@usableFromInline struct TargetTable<Element: AnyObject> {
    @usableFromInline struct Slot {
        @usableFromInline var fingerprint: UInt64
        /// Nil for an empty slot.
        @usableFromInline var element: Element?

        @inlinable init(fingerprint: UInt64, element: Element?) {
            self.fingerprint = fingerprint
            self.element = element
        }
    }

    @usableFromInline var slots: [Slot]
    @usableFromInline let mask: Int
    @usableFromInline let seed: UInt64
    @usableFromInline let capacity: Int
    @usableFromInline private(set) var count = 0

    @usableFromInline init(capacity: Int) {
        var size = 16
        while size < 2 * capacity { size *= 2 }
        slots = Array(repeating: Slot(fingerprint: 0, element: nil), count: size)
        mask = size - 1
        seed = UInt64.random(in: .min ... .max)
        self.capacity = capacity
    }

    @inlinable func firstIndex(of fingerprint: UInt64) -> Int {
        Int(truncatingIfNeeded: ((fingerprint ^ seed) &* 0x9e37_79b9_7f4a_7c15) >> 32) & mask
    }

    /// The element kept under `fingerprint`, if any.
    @inlinable func element(for fingerprint: UInt64) -> Element? {
        var index = firstIndex(of: fingerprint)
        while let element = slots[index].element {
            if slots[index].fingerprint == fingerprint { return element }
            index = (index + 1) & mask
        }
        return nil
    }

    /// Keeps `element` under `fingerprint`, in place of the one kept under it before, if any.
    /// Full, the table starts over.
    @inlinable mutating func set(_ element: Element, for fingerprint: UInt64) {
        if count >= capacity { removeAll() }
        var index = firstIndex(of: fingerprint)
        while slots[index].element != nil {
            if slots[index].fingerprint == fingerprint {
                slots[index].element = element
                return
            }
            index = (index + 1) & mask
        }
        slots[index] = Slot(fingerprint: fingerprint, element: element)
        count += 1
    }

    @usableFromInline mutating func removeAll() {
        for index in 0...mask { slots[index].element = nil }
        count = 0
    }

    /// Lets go of every element now, rather than when the table goes.
    @usableFromInline mutating func deallocate() { removeAll() }
}
