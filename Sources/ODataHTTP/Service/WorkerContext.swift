#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import ODataSerialization
import ODataStore
import ODataURI

/// What one server thread keeps between its requests: its reader of the store, its parsed
/// targets, its last service root and its entity layouts. The service itself (model, metadata)
/// is shared and never changes; everything that does is here, used by this thread alone, so
/// none of it needs a lock. `ODataService.handle` finds the calling thread's context once per
/// request and hands it down in the `RequestContext`.
final class WorkerContext {
    /// Its thread and what it served, which outlive it (`ODataService.workerRecords`).
    let record: WorkerRecord
    /// Parsed targets, with the SQL built for their queries.
    let parseCache: ParseCache<QueryMemo>
    /// The JSON layouts of the model's entity types, this thread's own although they never
    /// change: every entity written takes a reference to its layout, and the reference count of
    /// a layout both workers shared moved its cache line between their cores with every entity.
    let entityLayouts: EntityLayouts
    /// The last service root, by the Host header it came from (`ODataService.entityURIs`): a
    /// thread's requests nearly always name the same host.
    var serviceRootHost: String?
    var serviceRootURIs: EntityURIs?

    private let store: any EntityStore
    /// The thread's read connection, shared with the other roles' services.
    private let connections: ReaderConnections
    /// The role's row filters, applied to the reader as it opens (`RowFilter`).
    private let rowFilters: [RowFilter]
    /// Opened on the first read, not with the context: a thread that only writes or serves
    /// `$metadata` needs none, and a failure to open one is then that read's error.
    private var openedReader: (any EntityReading)?

    init(store: any EntityStore, connections: ReaderConnections, rowFilters: [RowFilter] = [], longestCachedTarget: Int,
         entityLayouts: EntityLayouts) {
        record = WorkerRecord(thread: pthread_self())
        self.store = store
        self.connections = connections
        self.rowFilters = rowFilters
        parseCache = ParseCache<QueryMemo>(longestTarget: longestCachedTarget)
        self.entityLayouts = entityLayouts
    }

    /// This thread's reader for this service: its own statements over the thread's connection
    /// (`ReaderConnections`), or a connection of its own from a store whose readers are not SQL.
    @inline(__always)
    func reader() throws -> any EntityReading {
        if let openedReader { return openedReader }
        let reader: any EntityReading
        if let shared = try connections.reader(of: store) as? EntityReader {
            let own = EntityReader(connection: shared.connection)
            own.restrictRows(to: rowFilters)
            reader = own
        } else {
            reader = try store.openReader(restrictedTo: rowFilters)
        }
        openedReader = reader
        return reader
    }

    /// Counts a request, on the thread the context belongs to.
    @inline(__always)
    func begin() {
        assert(pthread_equal(record.thread, pthread_self()) != 0, "a worker's context used by another thread")
        record.requestsServed &+= 1
    }
}

/// The thread a `WorkerContext` belongs to and the requests it served, kept by the service
/// for a look from outside the workers (tests, diagnostics) without keeping the context's reader
/// open.
final class WorkerRecord: @unchecked Sendable {
    let thread: pthread_t
    /// Written by its thread alone, so a plain increment; read once that thread is quiet.
    fileprivate(set) var requestsServed = 0

    init(thread: pthread_t) { self.thread = thread }
}
