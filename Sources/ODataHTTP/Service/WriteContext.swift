import EDM
import HTTPCore
import ODataSerialization
import ODataStore

/// What one write needs: the request, the store's write session (already inside the unit the
/// write belongs to) and, inside a batch change set, the entities that the
/// change set's earlier operations created, by Content-ID.
struct WriteContext {
    let request: RequestContext
    let session: any EntityWriting
    var contentIDs: ContentIDReferences?
    /// The body of a create, already read before the transaction began (see `write`).
    var payload: EntityPayload?

    var writer: any EntityWriting { session }
    var reader: any EntityReading { session }
    var deserializer: EntityDeserializer { EntityDeserializer(serviceRoot: request.serviceRoot) }
    var httpRequest: HTTPRequest { request.request }
}
