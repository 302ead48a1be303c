#if canImport(Glibc)
import Glibc
#endif

/// A document in the storage its writer wrote it to, handed on without a copy: the HTTP layer
/// lends these bytes to libmicrohttpd, which sends them from here. Copied into an array, a page
/// of 20 entities cost a second allocation of its size, the copy and a second free (about 1,100
/// instructions of a `Person?$top=20`, callgrind).
/// Immutable once made, so it may cross threads.
public final class SerializedBytes: @unchecked Sendable {
    /// The whole allocation, released with this object.
    private let storage: UnsafeMutablePointer<UInt8>
    private let capacity: Int
    /// The document, within `storage`.
    public let bytes: UnsafeBufferPointer<UInt8>

    /// Takes ownership of `storage` (`capacity` bytes from `ByteBuffer.allocate`), whose bytes
    /// `range` are the document.
    init(taking storage: UnsafeMutablePointer<UInt8>, capacity: Int, range: Range<Int>) {
        self.storage = storage
        self.capacity = capacity
        bytes = UnsafeBufferPointer(start: storage + range.lowerBound, count: range.count)
    }

    deinit { ByteBuffer.release(storage, count: capacity) }

    /// A copy of the bytes, for callers that need an array.
    public var array: [UInt8] { Array(bytes) }
}
