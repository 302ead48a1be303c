#if canImport(FoundationNetworking) && canImport(Crypto)
import Crypto
import Foundation

extension ServerTrust {
    /// Every certificate of a PEM file as it is, or a DER certificate as PEM: what libcurl takes as anchors.
    static func pemCertificates(_ file: URL) throws -> Data {
        let data = try Data(contentsOf: file)
        if String(decoding: data, as: UTF8.self).contains("-----BEGIN CERTIFICATE-----") { return data }
        return pem(data)
    }

    /// A DER certificate as PEM text.
    static func pem(_ der: Data) -> Data {
        let base64 = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return Data("-----BEGIN CERTIFICATE-----\n\(base64)\n-----END CERTIFICATE-----\n".utf8)
    }

    /// libcurl's pin of a certificate's public key: `sha256//` and the Base64 of the SHA-256 of
    /// its SubjectPublicKeyInfo, so that only a server showing this key is accepted.
    static func publicKeyPin(_ certificate: Data) throws -> String {
        guard let key = subjectPublicKeyInfo(certificate) else {
            throw CocoaError(.fileReadCorruptFile)
        }
        return "sha256//" + Data(SHA256.hash(data: key)).base64EncodedString()
    }

    /// The SubjectPublicKeyInfo of a DER certificate, tag and length included: the seventh
    /// element of `tbsCertificate`, or the sixth when the version is left out (RFC 5280, 4.1).
    static func subjectPublicKeyInfo(_ certificate: Data) -> Data? {
        let bytes = [UInt8](certificate)
        guard let outer = DERElement(bytes, at: 0), outer.tag == 0x30,
              let tbs = DERElement(bytes, at: outer.contentStart), tbs.tag == 0x30 else { return nil }
        var position = tbs.contentStart
        guard let first = DERElement(bytes, at: position) else { return nil }
        if first.tag == 0xA0 {
            position = first.end
        }
        // serialNumber, signature, issuer, validity, subject.
        for _ in 0..<5 {
            guard let skipped = DERElement(bytes, at: position) else { return nil }
            position = skipped.end
        }
        guard let key = DERElement(bytes, at: position), key.tag == 0x30, key.end <= tbs.end else { return nil }
        return Data(bytes[key.start..<key.end])
    }
}

/// One DER element's tag and extent within its bytes.
private struct DERElement {
    let tag: UInt8
    let start: Int
    let contentStart: Int
    let end: Int

    init?(_ bytes: [UInt8], at start: Int) {
        guard start + 2 <= bytes.count else { return nil }
        tag = bytes[start]
        self.start = start
        var length = Int(bytes[start + 1])
        var contentStart = start + 2
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...4).contains(count), contentStart + count <= bytes.count else { return nil }
            length = bytes[contentStart..<contentStart + count].reduce(0) { $0 << 8 | Int($1) }
            contentStart += count
        }
        guard contentStart + length <= bytes.count else { return nil }
        self.contentStart = contentStart
        end = contentStart + length
    }
}
#endif
