import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
#if canImport(Security)
import Security
#endif

/// Which HTTPS servers a connection trusts.
public enum ServerTrust: Sendable, Hashable {
    /// The system's trust store.
    case system
    /// Certificates that chain to this CA certificate (a PEM or DER file), and only those.
    case certificateAuthority(URL)
    /// Exactly this server certificate (a PEM or DER file), whoever signed it. (On Linux, where
    /// libcurl checks it, a server showing another certificate with the same public key, issued
    /// under this one, passes too.)
    case pinnedCertificate(URL)

    /// The DER bytes of the first certificate in a PEM or DER file.
    static func certificateData(_ file: URL) throws -> Data {
        let data = try Data(contentsOf: file)
        let text = String(decoding: data, as: UTF8.self)
        guard let begin = text.range(of: "-----BEGIN CERTIFICATE-----") else { return data }
        guard let end = text.range(of: "-----END CERTIFICATE-----", range: begin.upperBound..<text.endIndex),
              let der = Data(base64Encoded: text[begin.upperBound..<end.lowerBound]
                  .filter { !$0.isWhitespace }) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file.path])
        }
        return der
    }
}

#if canImport(Security)
/// Answers URLSession's server-trust challenges with a custom anchor or a pinned certificate.
final class ServerTrustDelegate: NSObject, URLSessionDelegate, Sendable {
    private let anchor: SecCertificate?
    private let pinned: Data?

    init(_ trust: ServerTrust) throws {
        switch trust {
        case .system:
            anchor = nil
            pinned = nil
        case .certificateAuthority(let file):
            let der = try ServerTrust.certificateData(file)
            guard let certificate = SecCertificateCreateWithData(nil, der as CFData) else {
                throw CocoaError(.fileReadCorruptFile, userInfo: [NSFilePathErrorKey: file.path])
            }
            anchor = certificate
            pinned = nil
        case .pinnedCertificate(let file):
            anchor = nil
            pinned = try ServerTrust.certificateData(file)
        }
    }

    func urlSession(_ session: URLSession, didReceive challenge: URLAuthenticationChallenge,
                    completionHandler: @escaping @Sendable (URLSession.AuthChallengeDisposition, URLCredential?) -> Void) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else {
            completionHandler(.performDefaultHandling, nil)
            return
        }
        if let anchor {
            SecTrustSetAnchorCertificates(trust, [anchor] as CFArray)
            SecTrustSetAnchorCertificatesOnly(trust, true)
            if SecTrustEvaluateWithError(trust, nil) {
                completionHandler(.useCredential, URLCredential(trust: trust))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        } else if let pinned {
            let chain = (SecTrustCopyCertificateChain(trust) as? [SecCertificate]) ?? []
            if let leaf = chain.first, SecCertificateCopyData(leaf) as Data == pinned {
                completionHandler(.useCredential, URLCredential(trust: trust))
            } else {
                completionHandler(.cancelAuthenticationChallenge, nil)
            }
        } else {
            completionHandler(.performDefaultHandling, nil)
        }
    }
}
#endif
