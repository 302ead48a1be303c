import ArgumentParser
import EDM
import Foundation
import HTTPCore
import Logging
import ODataHTTP
#if canImport(Glibc)
import Glibc
#endif

/// `serve`'s options for serving on a network: keys and rules, HTTPS, rates, and the refusal to
/// bind a network address with nobody checked.
struct SecurityOptions: ParsableArguments {
    @Option(name: .customLong("access-file"), help: "The access file (roles, rules, key hashes; see `keys add`): every request then needs a key, unless the file has an anonymous role. Reloaded on SIGHUP and when it changes.")
    var accessFile: String?

    @Option(name: .customLong("tls-cert"), help: "A PEM certificate (chain) to serve HTTPS with; needs --tls-key. Replacing it takes a restart.")
    var tlsCert: String?

    @Option(name: .customLong("tls-key"), help: "The PEM private key of --tls-cert (unencrypted; keep it readable by the server's user only).")
    var tlsKey: String?

    @Option(name: .customLong("rate-limit"), help: "Requests per second each key may make (each client address, without a key), as N or N/s; past it 429 with Retry-After. The access file may set it per role or key.")
    var rateLimit: String?

    @Flag(name: .customLong("allow-anonymous"), help: "Serve a non-loopback address without an access file: anyone who can connect may read and write everything.")
    var allowAnonymous = false

    func validate(host: String) throws {
        guard (tlsCert == nil) == (tlsKey == nil) else { throw ValidationError("--tls-cert and --tls-key go together") }
        if let rateLimit { _ = try Serve.parseRate(rateLimit, option: "--rate-limit") }
        if accessFile == nil, !allowAnonymous, !Self.isLoopback(host) {
            throw ValidationError("--host \(host) is reachable from the network, and without --access-file anyone could read and write everything: give --access-file, or --allow-anonymous to serve it open")
        }
    }

    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    func accessControl(schema: String, model: EntityModel, logger: Logger) throws -> AccessControl? {
        guard let accessFile else {
            if allowAnonymous {
                logger.warning("--allow-anonymous: no access file, so anyone who can connect may read and write everything")
            }
            return nil
        }
        let access = try AccessControl(path: accessFile, schema: URL(fileURLWithPath: schema), model: model)
        return access
    }

    func tlsCredentials(logger: Logger) throws -> HTTPServer.TLSCredentials? {
        guard let tlsCert, let tlsKey else { return nil }
        guard HTTPServer.supportsTLS else {
            throw ValidationError("--tls-cert: this libmicrohttpd was built without TLS support (GnuTLS)")
        }
        guard let certificate = FileManager.default.contents(atPath: tlsCert).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw ValidationError("cannot read the certificate \(tlsCert)")
        }
        guard let key = FileManager.default.contents(atPath: tlsKey).flatMap({ String(data: $0, encoding: .utf8) }) else {
            throw ValidationError("cannot read the key \(tlsKey)")
        }
        var status = stat()
        if stat(tlsKey, &status) == 0, status.st_mode & 0o077 != 0 {
            logger.warning("the TLS key \(tlsKey) is readable by other users (mode \(String(status.st_mode & 0o777, radix: 8))): chmod 600 it")
        }
        logger.info("HTTPS through libmicrohttpd's TLS (GnuTLS), certificate \(tlsCert)")
        return HTTPServer.TLSCredentials(keyPEM: key, certificatePEM: certificate)
    }

    static func reload(_ access: AccessControl?, logger: Logger) {
        guard let access else {
            logger.info("SIGHUP: no access file to reload (a new TLS certificate takes a restart)")
            return
        }
        do {
            let summary = try access.reload()
            logger.info("reloaded \(access.path): \(summary)")
        } catch {
            logger.error("\(access.path) not reloaded, the rules in force stay: \(error)")
        }
    }

    /// Reloads the access file when it changes (`keys add` on a running server), checked every
    /// second.
    static func watch(_ access: AccessControl, logger: Logger) {
        logger.info("access file \(access.path): \(access.summary)")
        let watcher = Thread {
            while true {
                sleep(1)
                do {
                    if let summary = try access.reloadIfChanged() { logger.info("\(access.path) changed: \(summary)") }
                } catch {
                    logger.error("\(access.path) changed but is not applied, the rules in force stay: \(error)")
                }
            }
        }
        watcher.start()
    }
}

extension Serve {
    /// `N` or `N/s`, above 0.
    static func parseRate(_ text: String, option: String) throws -> Double {
        let number = text.hasSuffix("/s") ? String(text.dropLast(2)) : text
        guard let rate = Double(number), rate > 0, rate.isFinite else {
            throw ValidationError("\(option) \(text) is not a rate: give requests per second, such as 10/s")
        }
        return rate
    }
}
