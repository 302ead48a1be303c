@testable import ODataSerialization
import Testing

/// The serializers write bounded parts of a document into room reserved ahead
/// (`JSONWriter.reserve`). The bound is computed by hand, so it can be wrong; a write past it
/// must stop the process, in release builds as in debug ones, never overwrite the heap. Each
/// case runs in a child process, which must end in failure.
@Suite struct ReservedRoomTests {
    /// A field added to an entity's `__metadata` without its size counted: more than reserved.
    @Test func aWriteBeyondTheReservedRoomStops() async {
        await #expect(processExitsWith: .failure) {
            var json = JSONWriter(capacity: 4096)
            var room = json.reserve(8)
            room.put(",\"media_src\":\"")
            json.commit(room)
        }
    }

    /// An integer's digits are checked as a whole before they are written.
    @Test func anIntegerBeyondTheReservedRoomStops() async {
        await #expect(processExitsWith: .failure) {
            var json = JSONWriter(capacity: 4096)
            var room = json.reserve(4)
            room.putInteger(123_456)
            json.commit(room)
        }
    }

    /// Room that was reserved, then moved by a write that grew the storage, is not committed.
    @Test func committingRoomOfMovedStorageStops() async {
        await #expect(processExitsWith: .failure) {
            var json = JSONWriter(capacity: 64)
            let room = json.reserve(8)
            json.text(String(repeating: "x", count: 100_000))
            json.commit(room)
        }
    }

    /// Within the room, every kind of write lands where expected, and several reservations in
    /// turn grow the storage far beyond its first capacity.
    @Test func writesWithinTheRoomGrowTheDocument() {
        var json = JSONWriter(capacity: 1)
        var expected = ""
        for index in 0..<2_000 {
            var room = json.reserve(40)
            room.put(",\"n\":")
            room.putInteger(Int64(index) * -1_000_003)
            room.put(UInt8(ascii: " "))
            json.commit(room)
            expected += ",\"n\":\(Int64(index) * -1_000_003) "
        }
        #expect(String(decoding: json.bytes, as: UTF8.self) == expected)
    }
}
