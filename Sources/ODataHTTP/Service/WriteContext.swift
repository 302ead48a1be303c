import EDM
import HTTPCore
import ODataSerialization
import ODataStore

/// What one write needs: the request, the calling thread's connection (already inside the
/// transaction the write belongs to) and, inside a batch change set, the entities that the
/// change set's earlier operations created, by Content-ID.
struct WriteContext {
    let request: RequestContext
    let database: Database
    let model: EntityModel
    var contentIDs: ContentIDReferences?
    /// The body of a create, already read before the transaction began (see `write`).
    var payload: EntityPayload?

    var writer: EntityWriter { EntityWriter(database: database, model: model) }
    var reader: EntityReader { EntityReader(database: database) }
    var deserializer: EntityDeserializer { EntityDeserializer(serviceRoot: request.serviceRoot) }
    var httpRequest: HTTPRequest { request.request }
}
