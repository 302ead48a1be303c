import EDM
import Foundation
import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// POST, PUT, MERGE, PATCH and DELETE (MS-ODATA 2.2.7): creates, updates, deletes and links.
/// Each request is one write of the `WriteGate`: it commits whole or rolls back whole, and is
/// answered only once committed (writes that arrive together share a commit). `$batch` runs its
/// change sets the same way, one write each.
extension ODataService {
    func write(_ context: RequestContext, method: String) throws -> HTTPResponse {
        if let operation = context.info.serviceOperation {
            // A service operation only reads, whichever method it is called with.
            try checkMethod(of: operation, method)
            return try conditionalRead(context)
        }
        if case .batch = context.info.resource {
            guard method == "POST" else { throw ServiceError.methodNotAllowed("$batch takes POST", allow: "POST") }
            return try batch(context)
        }
        // A create's body is checked and read before the write: writes run one at a time,
        // so all that is done inside one is paid by each of them.
        var payload: EntityPayload?
        if method == "POST", case .entityCollection(let path) = context.info.resource {
            payload = try createPayload(for: path, context)
        }
        var (response, commit) = try store.write(model: model) { session in
            try performWrite(WriteContext(request: context, session: restricted(session), payload: payload), method: method)
        }
        let request = context.request
        response.hold = CommitHold(commit: commit) { [self] failure in
            var failed = errorResponse(for: failure, request: request)
            finish(&failed, for: request)
            return failed
        }
        return response
    }

    /// One write, inside the unit of writes the caller opened (`context.session`).
    func performWrite(_ context: WriteContext, method: String) throws -> HTTPResponse {
        let request = context.httpRequest
        if let operation = context.request.info.serviceOperation {
            throw ServiceError.methodNotAllowed("the service operation \(operation.name) cannot be called inside a change set", allow: operation.httpMethod)
        }
        switch context.request.info.resource {
        case .entityCollection(let path):
            guard method == "POST" else {
                throw ServiceError.methodNotAllowed("\(method) cannot address a collection; address one entity by its key", allow: "GET, POST")
            }
            return try create(in: path, context)

        case .entity(let path):
            switch method {
            case "POST":
                guard case .navigation(let navigation, nil)? = path.segments.last, !navigation.isCollection else {
                    throw ServiceError.methodNotAllowed("POST creates entities in a collection; to change this entity use PUT, MERGE or PATCH",
                                                        allow: "GET, PUT, MERGE, PATCH, DELETE")
                }
                return try create(in: path, context)
            case "PUT", "MERGE", "PATCH":
                let format = try RequestBodyType.checkJSONOrXML(request)
                let record = try existing(path, context)
                try checkPreconditions(of: record, request)
                let payload = try context.deserializer.entity(from: request.body, of: record.type, format: format)
                let updated = try persister(context).update(record, with: payload, replace: method == "PUT")
                return noContent(etag: EntityTag.of(updated))
            default:
                let record = try existing(path, context)
                try checkPreconditions(of: record, request)
                try context.writer.delete(record)
                return noContent(etag: nil)
            }

        case .property(let path, let property, let raw):
            let value: EDMValue
            switch method {
            case "PUT", "MERGE", "PATCH":
                if raw {
                    try RequestBodyType.checkRaw(request, binary: property.type == .binary)
                    value = try context.deserializer.rawValue(from: request.body, for: property)
                } else if try RequestBodyType.checkJSONOrXML(request) == .xml {
                    value = try context.deserializer.propertyValue(fromXML: request.body, for: property)
                } else {
                    value = try context.deserializer.propertyValue(from: request.body, for: property)
                }
            case "DELETE":
                guard property.isNullable else {
                    throw ServiceError.badRequest("Property '\(property.name)' is not nullable, so its value cannot be deleted.")
                }
                value = .null
            default:
                throw ServiceError.methodNotAllowed("\(method) does not apply to a property; use PUT", allow: "GET, PUT, MERGE, PATCH, DELETE")
            }
            let record = try existing(path, context)
            try checkPreconditions(of: record, request)
            let updated = try persister(context).update(record, property: property, to: value)
            return noContent(etag: EntityTag.of(updated))

        case .links(let sourcePath, let navigation, let targetKey):
            return try changeLink(sourcePath, navigation, targetKey: targetKey, method: method, context)

        case .batch:
            throw ServiceError.badRequest("$batch cannot be nested inside a batch")

        case .serviceDocument, .metadata, .count:
            throw ServiceError.methodNotAllowed("this resource is read-only", allow: "GET")
        }
    }

    // MARK: Create

    /// `POST Set`, `POST Set(key)/Nav` (collection) and `POST Set(key)/Nav` (to-one): 201 with
    /// the created entity, its URI in Location and its ETag.
    private func create(in path: ResourcePath, _ context: WriteContext) throws -> HTTPResponse {
        let payload = try context.payload ?? createPayload(for: path, context.request)
        let persister = persister(context)
        let created: EntityRecord
        if let parentPath = path.parent, case .navigation(let navigation, _)? = path.segments.last {
            let parent = try existing(parentPath, context)
            created = try persister.create(payload, from: parent, along: navigation)
            if !navigation.targetHoldsForeignKey {
                try context.writer.link(parent, navigation, to: created)
            }
        } else {
            created = try persister.create(payload)
        }
        let tag = EntityTag.of(created)
        let atom = try ContentNegotiation.forData(format: context.request.info.options.format,
                                                  accept: context.httpRequest.header(.accept)) == .atom
        let headers = [
            ("Content-Type", atom ? Self.atomEntryType : Self.jsonType),
            ("DataServiceVersion", ResponseVersion.v1.headerValue),
            ("Location", context.request.uris.uri(of: created)),
            ("ETag", tag),
            ("Cache-Control", "no-cache"),
            ("X-Content-Type-Options", "nosniff"),
            ("Vary", "Accept"),
        ]
        // Written as every response is, from a row.
        return try created.withRow { row in
            if atom { return HTTPResponse(status: 201, headers: headers, body: try atomSerializer(context.request).entryDocument(row, select: nil)) }
            let body = try serializer(context.request, .v1).entityDocument(row, select: nil, tagDigest: row.tagDigest)
            return HTTPResponse(status: 201, headers: headers, lending: body)
        }
    }

    /// The entity a create's body describes, after the checks that need no database.
    private func createPayload(for path: ResourcePath, _ context: RequestContext) throws -> EntityPayload {
        let request = context.request
        // The body's type first (415), then whether the answer can be delivered (406), both
        // before anything is written.
        let format = try RequestBodyType.checkJSONOrXML(request)
        _ = try ContentNegotiation.forData(format: context.info.options.format, accept: request.header(.accept))
        let payload = try EntityDeserializer(serviceRoot: context.serviceRoot).entity(from: request.body, of: path.targetType, format: format)
        let limit = configuration.limits.maxObjectCountOnInsert
        guard Self.entityCount(payload, upTo: limit) <= limit else {
            throw LimitExceeded(.objectCountOnInsert, value: limit, subject: "The body would insert",
                                advice: "Insert them in several requests, or in the change sets of a $batch.")
        }
        return payload
    }

    /// The entities a create would insert, the top-level one and those inline, counted up to
    /// just past `limit`.
    private static func entityCount(_ payload: EntityPayload, upTo limit: Int) -> Int {
        var count = 1
        for navigation in payload.navigations {
            for case .inline(let inner) in navigation.relatedEntities {
                guard count <= limit else { return count }
                count += entityCount(inner, upTo: limit - count)
            }
        }
        return count
    }

    // MARK: Links

    /// `POST Set(key)/$links/Nav` adds a link to a to-many navigation, `PUT` sets a to-one
    /// link, `DELETE Set(key)/$links/Nav(key)` (to-many) or `DELETE Set(key)/$links/Nav`
    /// (to-one) removes one. The body names the target: `{"uri": "..."}`, or `<uri>...</uri>`.
    private func changeLink(_ sourcePath: ResourcePath, _ navigation: NavigationProperty, targetKey: [EDMValue]?,
                            method: String, _ context: WriteContext) throws -> HTTPResponse {
        let request = context.httpRequest
        let source = try existing(sourcePath, context)
        switch method {
        case "POST", "PUT", "MERGE", "PATCH":
            guard targetKey == nil else {
                throw ServiceError.badRequest("To add a link, address $links/\(navigation.name) without a key; the body names the entity to link.")
            }
            if navigation.isCollection {
                guard method == "POST" else {
                    throw ServiceError.methodNotAllowed("'\(navigation.name)' is a collection: POST adds a link to it, DELETE $links/\(navigation.name)(key) removes one",
                                                        allow: "GET, POST")
                }
            } else if method == "POST" {
                throw ServiceError.methodNotAllowed("'\(navigation.name)' is single-valued: PUT sets its link, DELETE removes it", allow: "GET, PUT, DELETE")
            }
            let reference = try RequestBodyType.checkJSONOrXML(request) == .xml
                ? try context.deserializer.link(fromXML: request.body)
                : try context.deserializer.link(from: request.body)
            let target = try resolve(reference, along: navigation, in: context)
            try context.writer.link(source, navigation, to: target)
        case "DELETE":
            var target: EntityRecord?
            if let targetKey {
                let targetPath = ResourcePath(segments: sourcePath.segments + [.navigation(navigation, key: targetKey)])
                target = try existing(targetPath, context)
            } else if navigation.isCollection {
                throw ServiceError.badRequest("'\(navigation.name)' is a collection: name the link to remove, as in $links/\(navigation.name)(key).")
            }
            try context.writer.unlink(source, navigation, from: target)
        default:
            throw ServiceError.methodNotAllowed("\(method) does not apply to $links", allow: "GET, POST, PUT, DELETE")
        }
        return noContent(etag: nil)
    }

    // MARK: Helpers

    private func persister(_ context: WriteContext) -> EntityPersister {
        var persister = EntityPersister(writer: context.writer) { [rules] reference, navigation in
            // A binding reads the entity it names.
            try rules?.require(.readSingle, navigation.target.entitySet!.name)
            return try self.resolve(reference, along: navigation, in: context)
        }
        if let rules {
            persister.checkInline = { type in try rules.require(.writeAppend, type.entitySet!.name) }
        }
        return persister
    }

    /// The entity a path addresses, as it is now and locked until the write ends, or 404.
    private func existing(_ path: ResourcePath, _ context: WriteContext) throws -> EntityRecord {
        guard let record = try context.reader.single(path), let current = try context.writer.lockedForWrite(record) else {
            throw notFound(path)
        }
        return current
    }

    /// 204, the answer to updates, deletes and link changes, with the entity's new ETag after an update.
    private func noContent(etag: String?) -> HTTPResponse {
        var headers = [("DataServiceVersion", ResponseVersion.v1.headerValue)]
        if let etag { headers.append(("ETag", etag)) }
        return HTTPResponse(status: 204, headers: headers)
    }
}

extension EntityDeserializer {
    /// An entity body in either format, into the one payload type the write path takes.
    func entity(from body: [UInt8], of type: EntityType, format: RequestBodyType.Format) throws(PayloadError) -> EntityPayload {
        switch format {
        case .json: try entity(from: body, of: type)
        case .xml: try entity(fromAtom: body, of: type)
        }
    }
}
