import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Where `$metadata` is read from: a file, or a service (its root or the `$metadata` URL itself).
enum MetadataSource {
    case file(String)
    case service(URL)

    /// The name the generated header gives the source.
    var name: String {
        switch self {
        case .file(let path): return path
        case .service(let url): return url.absoluteString
        }
    }

    /// `http://host/Service.svc/` -> `http://host/Service.svc/$metadata`; a `$metadata` URL stays.
    static func metadataURL(forServiceRoot text: String) -> URL? {
        guard var url = URL(string: text), let scheme = url.scheme?.lowercased(),
              scheme == "http" || scheme == "https", url.host != nil else { return nil }
        if url.lastPathComponent != "$metadata" {
            let root = text.hasSuffix("/") ? text : text + "/"
            guard let metadata = URL(string: root + "$metadata") else { return nil }
            url = metadata
        }
        return url
    }

    func read() async throws -> Data {
        switch self {
        case .file(let path):
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ModelGenerator.Failure(description: "cannot read \(path): \(MetadataSource.reason(error))")
            }
        case .service(let url):
            var request = URLRequest(url: url, timeoutInterval: 30)
            request.setValue("application/xml", forHTTPHeaderField: "Accept")
            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await URLSession.shared.data(for: request)
            } catch let error as URLError {
                let reason = error.code == .cannotConnectToHost ? "connection refused"
                    : error.code == .timedOut ? "timed out" : error.localizedDescription
                throw ModelGenerator.Failure(description: "cannot reach \(url.absoluteString): \(reason)")
            }
            if let http = response as? HTTPURLResponse, !(200..<300).contains(http.statusCode) {
                throw ModelGenerator.Failure(description: "\(url.absoluteString) answered \(http.statusCode)")
            }
            return data
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}
