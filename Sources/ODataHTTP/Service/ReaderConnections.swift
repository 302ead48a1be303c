import HTTPCore
import ODataStore

/// Each server thread's read connection to the store, shared by the services of every role:
/// a role's reader is its own (its statements, and the derived tables of its row filters, are
/// its own) but reads over the thread's one connection, so a gateway with many roles opens no
/// more connections than threads. Nothing a role does is left on the connection.
final class ReaderConnections: Sendable {
    private let slots = ThreadLocal { ReaderSlot() }

    /// The calling thread's reader of `store`, opened on its first use (`EntityStore.openReader`).
    func reader(of store: any EntityStore) throws -> any EntityReading {
        let slot = slots.get()
        if let opened = slot.reader { return opened }
        let reader = try store.openReader()
        slot.reader = reader
        return reader
    }
}

/// One thread's reader; used by that thread alone.
private final class ReaderSlot {
    var reader: (any EntityReading)?
}
