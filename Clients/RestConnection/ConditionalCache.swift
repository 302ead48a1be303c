import Foundation

/// The last body read for each URL with an ETag, so a typed read can ask `If-None-Match` and
/// take a 304 from here. Bounded: the oldest entries go first.
struct ConditionalCache {
    static let capacity = 64

    private var entries: [URL: (etag: String, response: RestResponse)] = [:]
    private var order: [URL] = []

    func lookup(_ url: URL) -> (etag: String, response: RestResponse)? {
        entries[url]
    }

    mutating func store(_ response: RestResponse, for url: URL) {
        guard let etag = response.etag else {
            remove(url)
            return
        }
        if entries.updateValue((etag, response), forKey: url) == nil {
            order.append(url)
        }
        if order.count > ConditionalCache.capacity {
            entries.removeValue(forKey: order.removeFirst())
        }
    }

    mutating func remove(_ url: URL) {
        guard entries.removeValue(forKey: url) != nil else { return }
        order.removeAll { $0 == url }
    }
}
