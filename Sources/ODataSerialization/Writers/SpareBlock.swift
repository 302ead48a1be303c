#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One block of `size` bytes per thread, kept when a buffer of that size is let go and handed to
/// the thread's next buffer of that size instead of going back to malloc. A page of entities
/// (`VerboseJSONSerializer.collectionDocument`) is written into such a block, and a block this
/// large is past glibc's per-thread cache: malloc spent about 560 instructions finding one and
/// free about 150 giving it back, on every page (`Person?$top=20`, callgrind).
/// The server sends a response and lets it go on the thread that wrote it, so the block a page
/// was written to is there for the next page of that thread.
///
/// Kept by a thread key of its own rather than in the service's `WorkerContext`: a block is let
/// go when the server drops a response it has sent, after the request's code has returned and
/// with no context in hand, and a response may be dropped on a thread other than its writer's
/// (a test, a caller of `ODataService.handle`): the key gives each block to whichever thread lets
/// it go, where a context's slot would be written by a thread it does not belong to.
enum SpareBlock {
    static let size = 8192

    /// The thread's spare block, freed when the thread ends.
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        guard pthread_key_create(&key, { free($0) }) == 0 else { fatalError("no thread-specific key left") }
        return key
    }()

    /// The thread's spare block, or nil when it has none (its last one is still in use).
    static func take() -> UnsafeMutablePointer<UInt8>? {
        guard let spare = pthread_getspecific(key) else { return nil }
        pthread_setspecific(key, nil)
        return spare.assumingMemoryBound(to: UInt8.self)
    }

    /// Keeps `block`, of `size` bytes from malloc, as the thread's spare, or frees it when the
    /// thread has one already.
    static func keep(_ block: UnsafeMutablePointer<UInt8>) {
        let key = key
        if pthread_getspecific(key) == nil, pthread_setspecific(key, block) == 0 { return }
        free(block)
    }
}
