import EDM
import Foundation
import HTTPCore
import ODataSerialization
import ODataStore
import ODataURI

/// The pages a browser gets (`ContentNegotiation.prefersHTML`): the same reads, limits and
/// errors as JSON and Atom, written by `HTMLSerializer`. A set pages by `$skip`, so that a page
/// has a previous one; a page reached by a `$skiptoken` (a JSON `__next`) has only a next one.
extension ODataService {
    static let htmlType = "text/html;charset=utf-8"
    /// No script runs and nothing is loaded from elsewhere: the pages need only their own styles.
    static let htmlSecurityPolicy = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

    func htmlSerializer(_ uris: EntityURIs) -> HTMLSerializer {
        HTMLSerializer(uris: uris, serviceName: model.containerName)
    }

    func htmlPage(_ body: [UInt8], entityTag: EntityTagValue? = nil) -> HTTPResponse {
        var response = ok(body, type: Self.htmlType, version: .v1, entityTag: entityTag)
        response.headers.append(("Content-Security-Policy", Self.htmlSecurityPolicy))
        return response
    }

    /// An entity, or a page of a set or of a navigation's entities.
    func readHTML(_ path: ResourcePath, single: Bool, context: RequestContext) throws -> HTTPResponse {
        let options = context.info.options
        let reader = try context.worker.reader()
        var budget = entityBudget
        let html = htmlSerializer(context.uris)
        let display = Self.displayPath(context.request, below: configuration.rootPath)
        if single {
            try budget.spend(1)
            var response: HTTPResponse?
            try reader.withSingle(path, streaming: [], memo: context.queryMemo, budget: budget) { row in
                response = htmlPage(html.entityPage(row, path: display, select: options.select),
                                    entityTag: RepresentationTag.header(digest: row.tagDigest, form: .html, options: options))
            }
            guard let response else { throw notFound(path) }
            return response
        }
        let pageSize = path.targetSet.pageSize ?? configuration.defaultPageSize
        let query = EntityQuery(path: path, options: options, pageSize: pageSize)
        // Each entity written from its row as it is read, as in JSON and Atom.
        var table = html.collectionPage(path: display, type: path.targetType, select: options.select)
        let token = try reader.forEachRow(query, memo: context.queryMemo) { row in
            try budget.spend(1)
            table.append(row)
        }
        let end = try pageEnd(query, delivered: table.count, nextToken: token, reader: reader, context: context)
        let skip = options.skip ?? 0
        let bySkip = options.skipToken == nil && options.top == nil
        let paging = HTMLSerializer.Paging(
            next: end.next.map { bySkip ? pageLink(context, skip: skip + table.count) : $0 },
            previous: bySkip && skip > 0 ? pageLink(context, skip: max(0, skip - pageSize)) : nil,
            firstPosition: bySkip ? skip : 0, count: end.count)
        return htmlPage(table.finish(filter: filterBox(context.request, uris: context.uris, error: nil), paging: paging))
    }

    /// The service root's page.
    func htmlServiceDocument(_ context: RequestContext) -> HTTPResponse {
        htmlPage(htmlSerializer(context.uris).serviceDocument(model))
    }

    /// An error as a page: beside the filter box when the request filtered a set, so that the
    /// person sees what was wrong where they typed it.
    func htmlError(_ error: any ODataResponseError, request: HTTPRequest) -> HTTPResponse {
        let uris = EntityURIs(serviceRoot: (try? serviceRoot(for: request)) ?? configuration.rootPath + "/")
        let message = "\(error.status) \(error.code): \(error.message)"
        let filter = Self.queryOption("$filter", in: request.query) == nil ? nil : filterBox(request, uris: uris, error: message)
        let path = request.pathIsBelow(configuration.rootPath) ? Self.displayPath(request, below: configuration.rootPath) : nil
        let body = htmlSerializer(uris).errorPage(status: error.status, code: error.code, message: error.message,
                                                  path: path.flatMap { $0.isEmpty ? nil : $0 }, filter: filter)
        let headers = error.headers + [("Content-Type", Self.htmlType), ("DataServiceVersion", "1.0;"), ("Cache-Control", "no-cache"),
                                       ("X-Content-Type-Options", "nosniff"), ("Vary", "Accept"),
                                       ("Content-Security-Policy", Self.htmlSecurityPolicy)]
        return HTTPResponse(status: error.status, headers: headers, body: body)
    }

    private func filterBox(_ request: HTTPRequest, uris: EntityURIs, error: String?) -> HTMLSerializer.FilterBox {
        let relative = String(request.path.dropFirst(configuration.rootPath.count + 1))
        let kept = ["$orderby", "$select", "$inlinecount"].compactMap { name in
            Self.queryOption(name, in: request.query).map { (name: name, value: $0) }
        }
        return .init(action: uris.serviceRoot + relative, filter: Self.queryOption("$filter", in: request.query) ?? "", kept: kept,
                     error: error)
    }

    /// The same request with `$skip` set and `$skiptoken` dropped.
    private func pageLink(_ context: RequestContext, skip: Int) -> String {
        let (path, query) = context.request.pathAndQuery
        var relative = path.dropFirst(configuration.rootPath.count)
        if relative.first == "/" { relative = relative.dropFirst() }
        var parts: [String] = []
        for pair in query.split(separator: "&") where !pair.isEmpty {
            let name = Self.decoded(pair.prefix { $0 != "=" })
            if name == "$skip" || name == "$skiptoken" { continue }
            parts.append(String(pair))
        }
        if skip > 0 { parts.append("$skip=\(skip)") }
        return context.serviceRoot + relative + (parts.isEmpty ? "" : "?" + parts.joined(separator: "&"))
    }

    /// The path below the service root as a person reads it: percent-decoded.
    private static func displayPath(_ request: HTTPRequest, below root: String) -> String {
        var relative = request.path.dropFirst(root.count)
        if relative.first == "/" { relative = relative.dropFirst() }
        return decoded(relative)
    }

    /// A query option's value, decoded as a form submits it (`+` is a space).
    static func queryOption(_ name: String, in query: Substring) -> String? {
        for pair in query.split(separator: "&") {
            let key = pair.prefix { $0 != "=" }
            guard decoded(key) == name else { continue }
            return key.endIndex == pair.endIndex ? "" : decoded(pair[pair.index(after: key.endIndex)...])
        }
        return nil
    }

    private static func decoded(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
