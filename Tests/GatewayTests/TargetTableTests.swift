@testable import ODataURI
import Testing

/// The parse cache's table of targets by fingerprint: every kept element is found by its own
/// fingerprint, a fingerprint kept again replaces its element, a full table starts over, and
/// the table holds each element it keeps exactly as long as it keeps it.
@Suite struct TargetTableTests {
    final class Element {
        let name: Int
        init(_ name: Int) { self.name = name }
    }

    @Test func everyKeptElementIsFoundByItsFingerprint() {
        var table = TargetTable<Element>(capacity: 100)
        defer { table.deallocate() }
        // Fingerprints that differ only in high bits, and consecutive ones: runs of probes.
        let fingerprints = (0..<50).map { UInt64($0) << 40 } + (1...50).map { UInt64($0) }
        for (name, fingerprint) in fingerprints.enumerated() { table.set(Element(name), for: fingerprint) }
        #expect(table.count == 100)
        for (name, fingerprint) in fingerprints.enumerated() {
            #expect(table.element(for: fingerprint)?.name == name, "\(fingerprint)")
        }
        #expect(table.element(for: 51) == nil)
        #expect(table.element(for: 1 << 63) == nil)
    }

    @Test func aFingerprintKeptAgainReplacesItsElement() {
        var table = TargetTable<Element>(capacity: 8)
        defer { table.deallocate() }
        table.set(Element(1), for: 42)
        table.set(Element(2), for: 42)
        #expect(table.count == 1)
        #expect(table.element(for: 42)?.name == 2)
    }

    @Test func aFullTableStartsOver() {
        var table = TargetTable<Element>(capacity: 8)
        defer { table.deallocate() }
        for fingerprint in 1...8 { table.set(Element(Int(fingerprint)), for: UInt64(fingerprint)) }
        #expect(table.count == 8)
        table.set(Element(9), for: 9)
        #expect(table.count == 1)
        #expect(table.element(for: 9)?.name == 9)
        #expect(table.element(for: 1) == nil)
    }

    /// Replaced, dropped when the table starts over, or deallocated with it: each element is
    /// released once, and none before the table lets it go.
    @Test func elementsLiveAsLongAsTheTableKeepsThem() {
        weak var replaced: Element?
        weak var dropped: Element?
        weak var last: Element?
        var table = TargetTable<Element>(capacity: 2)
        do {
            let first = Element(1), second = Element(2), third = Element(3)
            (replaced, dropped) = (first, third)
            table.set(first, for: 1)
            table.set(second, for: 1)
            table.set(third, for: 2)
        }
        #expect(replaced == nil, "released when replaced")
        #expect(dropped?.name == 3, "kept")
        do {
            let fourth = Element(4)
            last = fourth
            table.set(fourth, for: 3)
        }
        #expect(dropped == nil, "released when the full table started over")
        #expect(last?.name == 4)
        table.deallocate()
        #expect(last == nil, "released with the table")
    }
}
