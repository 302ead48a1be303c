import EDM
import Foundation
import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// GET: the service document, `$metadata`, entities, properties, counts and links.
extension ODataService {
    func read(_ context: RequestContext) throws -> HTTPResponse {
        let info = context.info
        let options = info.options
        if let operation = info.serviceOperation {
            try checkMethod(of: operation, context.request.method)
            if case .value(let type, let aggregate) = operation.result {
                return try readOperationValue(operation, type: type, aggregate: aggregate, context: context)
            }
        }
        switch info.resource {
        case .serviceDocument:
            switch try ContentNegotiation.forServiceDocument(format: options.format, accept: context.request.header(.accept)) {
            case .json: return ok(ServiceDocumentSerializer.json(for: model), type: "application/json;charset=utf-8", version: .v1)
            case .html: return htmlServiceDocument(context)
            default:
                let xml = ServiceDocumentSerializer.atom(for: model, serviceRoot: context.serviceRoot)
                return ok(Array(xml.utf8), type: "application/atomsvc+xml;charset=utf-8", version: .v1)
            }

        case .metadata:
            return ok(metadataXML, type: "application/xml;charset=utf-8", version: .v2)

        case .batch:
            throw ServiceError.methodNotAllowed("$batch takes POST", allow: "POST")

        case .entity(let path):
            return try readEntities(path, single: true, context: context)

        case .entityCollection(let path):
            return try readEntities(path, single: false, context: context)

        case .property(let path, let property, let raw):
            let reader = try context.worker.reader()
            var read: (value: EDMValue, tagDigest: UInt64)?
            try reader.withSingle(path, streaming: [], memo: nil, budget: .unlimited) { row in read = (row.value(of: property), row.tagDigest) }
            guard let (value, tagDigest) = read else { throw notFound(path) }
            if raw {
                guard !value.isNull else {
                    throw ServiceError.notFound("the value of \(property.name) is null, so \(property.name)/$value has no content")
                }
                if case .binary(let bytes) = value {
                    return ok(bytes, type: "application/octet-stream", version: .v1)
                }
                return ok(Array(RawValueFormatter.text(value, type: property.type).utf8), type: "text/plain;charset=utf-8", version: .v1)
            }
            if try ContentNegotiation.forData(format: options.format, accept: context.request.header(.accept)) == .atom {
                return ok(atomSerializer(context).propertyDocument(property, value: value), type: "application/xml;charset=utf-8",
                          version: .v1, entityTag: RepresentationTag.header(digest: tagDigest, form: .xml, options: options))
            }
            return ok(serializer(context, .v1).propertyDocument(property, value: value), type: "application/json;charset=utf-8", version: .v1,
                      entityTag: RepresentationTag.header(digest: tagDigest, form: .json, options: options))

        case .count(let path):
            try VersionNegotiation.checkResponse(.v2, maximum: context.maxVersion)
            let reader = try context.worker.reader()
            if path.segments.count > 1, let parent = path.parent, try !reader.exists(parent) { throw notFound(parent) }
            let query = EntityQuery(path: path, options: options, pageSize: nil)
            let count = try reader.count(query, applyTopSkip: true, memo: context.queryMemo)
            return ok(Array(String(count).utf8), type: "text/plain;charset=utf-8", version: .v2)

        case .links(let source, let navigation, let targetKey):
            let representation = try ContentNegotiation.forData(format: options.format, accept: context.request.header(.accept))
            return try readLinks(source: source, navigation: navigation, targetKey: targetKey, context: context, representation: representation)
        }
    }

    /// Whether `readEntities` reads the `$expand` of `info`'s target in place (`QueryMemo.expandsInPlace`).
    static func expandsInPlace(_ info: UriInfo) -> Bool {
        let expand = info.options.expand
        switch info.resource {
        case .entity: return expand.isEmpty || ExpansionStream.canStream(expand)
        case .entityCollection: return JoinedExpansions.canJoin(expand)
        default: return false
        }
    }

    /// An entity or a page of a collection, with its expansions, in JSON or Atom alike, each
    /// entity written from an `EntityRow` with its children (`EntityRow.children(for:)`). The
    /// row is read in place as it is written when every expansion is read along with it:
    /// joined into the row (single-valued navigations), or, below a single entity, read as the
    /// response reaches it (`ExpansionStream`). Otherwise (expansions below expanded
    /// collections) the entities and each expansion level are read first, one statement per
    /// level, into an `EntityCursor`, which lends its rows the same way. The request's
    /// `EntityBudget` is counted as entities are read, and what follows a page (`pageEnd`: the
    /// 404 of a missing parent, the count, the next link) once its last entity is read; a
    /// failure is thrown where it happens, and the response dropped.
    private func readEntities(_ path: ResourcePath, single: Bool, context: RequestContext) throws -> HTTPResponse {
        let options = context.info.options
        let representation = try ContentNegotiation.forData(format: options.format, accept: context.request.header(.accept))
        if representation == .html { return try readHTML(path, single: single, context: context) }
        let atom = representation == .atom
        let reader = try context.worker.reader()
        var budget = entityBudget
        let inPlace = context.queryMemo.expandsInPlace
        if single {
            let version: ResponseVersion = options.requiresVersion2 ? .v2 : .v1
            try budget.spend(1)
            if inPlace {
                var response: HTTPResponse?
                try reader.withSingle(path, streaming: options.expand, memo: context.queryMemo, budget: budget) { row in
                    response = try entityResponse(row, atom: atom, version: version, context: context)
                }
                guard let response else { throw notFound(path) }
                try VersionNegotiation.checkResponse(version, maximum: context.maxVersion)
                return response
            }
            let entity = try reader.entity(at: path)
            guard entity.count > 0 else { throw notFound(path) }
            try VersionNegotiation.checkResponse(version, maximum: context.maxVersion)
            try reader.expand(entity, options.expand, memo: context.queryMemo, budget: &budget)
            var response: HTTPResponse?
            try entity.forEach { row in response = try entityResponse(row, atom: atom, version: version, context: context) }
            return response!
        }

        let pageSize = path.targetSet.pageSize ?? configuration.defaultPageSize
        if inPlace {
            let query = EntityQuery(path: path, options: options, pageSize: pageSize, joinedExpand: options.expand)
            var delivered = 0
            if atom {
                var feed = atomSerializer(context).rowFeed(title: path.targetSet.name, selfLink: selfLink(context), select: options.select)
                let token = try reader.forEachRow(query, memo: context.queryMemo) { row in
                    try budget.spend(row.entityCount)
                    try feed.append(row)
                    delivered += 1
                }
                let end = try pageEnd(query, delivered: delivered, nextToken: token, reader: reader, context: context)
                return ok(feed.finish(count: end.count, next: end.next), type: Self.atomFeedType, version: end.version)
            }
            // The JSON serializer's version shapes only expanded collections, of which there are none here.
            var document = serializer(context, .v2).rowCollection(select: options.select)
            let token = try reader.forEachRow(query, memo: context.queryMemo) { row in
                // Before the entity is written: a response past the limit is dropped whole.
                try budget.spend(row.entityCount)
                try document.append(row)
                delivered += 1
            }
            let end = try pageEnd(query, delivered: delivered, nextToken: token, reader: reader, context: context)
            return ok(document.finish(end), type: Self.jsonType, version: end.version)
        }
        let query = EntityQuery(path: path, options: options, pageSize: pageSize)
        let page = try reader.page(query, memo: context.queryMemo)
        let entities = page.entities
        try budget.spend(entities.count)
        try reader.expand(entities, options.expand, memo: context.queryMemo, budget: &budget)
        let end = try pageEnd(query, delivered: entities.count, nextToken: page.nextSkipToken, reader: reader, context: context)
        if atom {
            var feed = atomSerializer(context).rowFeed(title: path.targetSet.name, selfLink: selfLink(context), select: options.select)
            try entities.forEach { row in try feed.append(row) }
            return ok(feed.finish(count: end.count, next: end.next), type: Self.atomFeedType, version: end.version)
        }
        // Here the version shapes the expanded collections: it is known before the first entity.
        var document = serializer(context, end.version).rowCollection(select: options.select)
        try entities.forEach { row in try document.append(row) }
        return ok(document.finish(end), type: Self.jsonType, version: end.version)
    }

    /// A single entity's document, in JSON or Atom, with its ETag.
    private func entityResponse(_ row: EntityRow, atom: Bool, version: ResponseVersion, context: RequestContext) throws -> HTTPResponse {
        let options = context.info.options
        // One digest for both: the ETag header and the one in the document.
        let digest = row.tagDigest
        return atom
            ? ok(try atomSerializer(context).entryDocument(row, select: options.select), type: Self.atomEntryType,
                 version: version, entityTag: RepresentationTag.header(digest: digest, form: .atom, options: options))
            : ok(try serializer(context, version).entityDocument(row, select: options.select, tagDigest: digest),
                 type: Self.jsonType, version: version, entityTag: RepresentationTag.header(digest: digest, form: .json, options: options))
    }

    /// The request's path below the service root, which an Atom feed names itself by: only
    /// Atom pays for cutting it out.
    private func selfLink(_ context: RequestContext) -> String {
        String(context.request.path.dropFirst(configuration.rootPath.count + 1))
    }

    /// What follows a page of entities, for both ways of writing it: a 404 when the page is
    /// empty because its parent entity does not exist, the `$inlinecount`, the next link, and
    /// the response version these make (checked against the client's maximum).
    func pageEnd(_ query: EntityQuery, delivered: Int, nextToken: [EDMValue]?, reader: any EntityReading,
                         context: RequestContext) throws -> VerboseJSONSerializer.CollectionEnd {
        let options = context.info.options
        if delivered == 0, let parent = query.path.parent, try !reader.exists(parent) { throw notFound(parent) }
        let count = options.inlineCount == .allPages ? try reader.count(query, applyTopSkip: false, memo: context.queryMemo) : nil
        let next = nextToken.map { nextLink(context, token: $0, delivered: delivered) }
        // A service operation's entities come in the 2.0 form (`results`) whenever the client
        // takes it: clients of operations (pyodata's functions, SAP's) read nothing else.
        let operationInV2 = context.info.serviceOperation != nil && context.maxVersion >= 2
        let version: ResponseVersion = options.requiresVersion2 || next != nil || operationInV2 ? .v2 : .v1
        try VersionNegotiation.checkResponse(version, maximum: context.maxVersion)
        return .init(version: version, count: count, next: next)
    }

    private func readLinks(source: ResourcePath, navigation: NavigationProperty, targetKey: [EDMValue]?,
                           context: RequestContext, representation: ContentNegotiation.Representation) throws -> HTTPResponse {
        let options = context.info.options
        let reader = try context.worker.reader()
        guard try reader.exists(source) else { throw notFound(source) }
        let path = ResourcePath(segments: source.segments + [.navigation(navigation, key: targetKey)])
        let single = !navigation.isCollection || targetKey != nil
        var query = EntityQuery(path: path, options: options, pageSize: single ? nil : (path.targetSet.pageSize ?? configuration.defaultPageSize))
        if single { query.top = 1 }
        // Each entity's URI taken from its row as it is read, as entities are written.
        var relativeURIs: [String] = []
        let token = try reader.forEachRow(query, memo: nil) { row in
            relativeURIs.append(context.uris.relativeURI(of: row))
        }
        if single && relativeURIs.isEmpty && targetKey != nil { throw notFound(path) }
        let count = options.inlineCount == .allPages && !single ? try reader.count(query, applyTopSkip: false) : nil
        let next = token.map { nextLink(context, token: $0, delivered: relativeURIs.count) }
        let version: ResponseVersion = options.requiresVersion2 || next != nil ? .v2 : .v1
        try VersionNegotiation.checkResponse(version, maximum: context.maxVersion)
        if representation == .atom {
            return ok(atomSerializer(context).linksDocument(relativeURIs, single: single, count: count),
                      type: "application/xml;charset=utf-8", version: version)
        }
        let body = serializer(context, version).linksDocument(relativeURIs, single: single, count: count, next: next)
        return ok(body, type: "application/json;charset=utf-8", version: version)
    }

    /// The URI of the next page: the same request with `$skiptoken` set after the last entity
    /// delivered, `$skip` dropped (the token already positions the page) and `$top` reduced by
    /// what was delivered.
    func nextLink(_ context: RequestContext, token: [EDMValue], delivered: Int) -> String {
        let (path, query) = context.request.pathAndQuery
        var request = path.dropFirst(configuration.rootPath.count)
        if request.first == "/" { request = request.dropFirst() }
        var parts: [String] = []
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let name = pair.prefix { $0 != "=" }
            if ["$skiptoken", "$skip", "$top"].contains(name) { continue }
            parts.append(String(pair))
        }
        if let top = context.info.options.top { parts.append("$top=\(top - delivered)") }
        parts.append("$skiptoken=" + QueryEscaping.escape(LiteralFormatter.skipToken(token)))
        return context.serviceRoot + request + "?" + parts.joined(separator: "&")
    }

    func serializer(_ context: RequestContext, _ version: ResponseVersion) -> VerboseJSONSerializer {
        VerboseJSONSerializer(uris: context.uris, version: version, layouts: context.worker.entityLayouts, writesETags: true)
    }

    func atomSerializer(_ context: RequestContext) -> AtomSerializer {
        AtomSerializer(uris: context.uris, updated: AtomTimestamp.now(), writesETags: true)
    }

    /// What one response may hold (`QueryLimits`), counted as it is read.
    var entityBudget: EntityBudget { EntityBudget(configuration.limits) }

    func notFound(_ path: ResourcePath) -> ServiceError {
        let description = path.segments.map { segment -> String in
            switch segment {
            case .entitySet(let set, let key): return set.name + (key.map { "(" + LiteralFormatter.keyPredicate($0, of: set.entityType) + ")" } ?? "")
            case .navigation(let nav, let key): return nav.name + (key.map { "(" + LiteralFormatter.keyPredicate($0, of: nav.target) + ")" } ?? "")
            }
        }.joined(separator: "/")
        return .notFound("Resource not found for the segment '\(description)'.")
    }

    func ok(_ body: [UInt8], type: String, version: ResponseVersion, entityTag: EntityTagValue? = nil) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: okHeaders(type: type, version: version), body: body)
        response.entityTag = entityTag
        return response
    }

    /// A 200 sent from the serializer's own buffer.
    func ok(_ body: SerializedBytes, type: String, version: ResponseVersion, entityTag: EntityTagValue? = nil) -> HTTPResponse {
        var response = HTTPResponse(status: 200, headers: okHeaders(type: type, version: version), lending: body)
        response.entityTag = entityTag
        return response
    }

    /// A JSON response shares its header list (its ETag is apart, `HTTPResponse.entityTag`):
    /// building one cost an array and its four fields, and their destruction, on every request.
    private func okHeaders(type: String, version: ResponseVersion) -> [(String, String)] {
        guard type == Self.jsonType else { return Self.headers(type: type, version: version) }
        return version == .v1 ? jsonHeaders.v1 : jsonHeaders.v2
    }

    static func headers(type: String, version: ResponseVersion) -> [(String, String)] {
        // Vary: Accept on every answer, so that no cache gives one representation to a client
        // that asked for another (those that have one, $metadata, say it needlessly but truly).
        [("Content-Type", type), ("DataServiceVersion", version.headerValue), ("Cache-Control", "no-cache"),
         ("X-Content-Type-Options", "nosniff"), ("Vary", "Accept")]
    }

    static let jsonType = "application/json;charset=utf-8"
    static let atomEntryType = "application/atom+xml;type=entry;charset=utf-8"
    static let atomFeedType = "application/atom+xml;type=feed;charset=utf-8"
}

/// Percent-encoding for a query option value: everything but unreserved characters and the
/// quote and comma of literals.
enum QueryEscaping {
    static func escape(_ text: String) -> String {
        var out = ""
        let hex = Array("0123456789ABCDEF")
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "'"), UInt8(ascii: ","):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}
