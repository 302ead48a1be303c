import Foundation
import RestConnection

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

    /// Reads the metadata: a file from disk, a service through `connection` (its credentials,
    /// trust and deadline).
    func read(through connection: RestConnection?) async throws -> Data {
        switch self {
        case .file(let path):
            do {
                return try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw ModelGenerator.Failure(description: "cannot read \(path): \(MetadataSource.reason(error))")
            }
        case .service(let url):
            guard let connection else {
                throw ModelGenerator.Failure(description: "no connection to read \(url.absoluteString) through")
            }
            do {
                let response = try await connection.send(RestRequest(path: url.absoluteString, headers: ["Accept": "application/xml"]))
                return response.data
            } catch RestConnectionError.connectionFailed(_, let reason, _) {
                throw ModelGenerator.Failure(description: "cannot reach \(url.absoluteString): \(reason)")
            } catch {
                throw ModelGenerator.Failure(description: "\(error)")
            }
        }
    }

    private static func reason(_ error: any Error) -> String {
        let nsError = error as NSError
        if nsError.domain == NSCocoaErrorDomain, nsError.code == NSFileReadNoSuchFileError { return "no such file" }
        return nsError.localizedDescription
    }
}
