import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// Why the server refuses a request on its head alone, before it reads a body. libmicrohttpd
/// 0.9.75 lets each of these through to the handler (or, for an unknown transfer coding, waits
/// for a body it cannot delimit), so the server checks them itself when it first sees the head.
public enum FramingViolation: Sendable, Equatable {
    /// Content-Length and Transfer-Encoding together. libmicrohttpd honours the chunked body
    /// and leaves the connection open, so bytes after it would be read as a next request: the
    /// building block of request smuggling through a proxy that went by Content-Length.
    case lengthWithTransferEncoding
    /// Content-Length more than once: which one frames the body is ambiguous.
    case repeatedContentLength
    /// A transfer coding other than chunked (the only one the server decodes).
    case unsupportedTransferCoding(String)
    /// chunked named twice, or not last: the body's end cannot be known.
    case chunkedNotFinal
    /// An HTTP/1.1 request without Host (RFC 9112 section 3.2).
    case missingHost
    /// Host more than once.
    case repeatedHost
    /// A field value with a NUL, or a field folded over several lines: libmicrohttpd cuts a
    /// value at its first NUL, so the handler would act on a value the client did not send whole.
    case malformedField
    /// A request line and fields longer, or more fields, than the server accepts.
    case headTooLarge(maxBytes: Int, maxFields: Int)

    public var status: Int {
        switch self {
        case .unsupportedTransferCoding: 501
        case .headTooLarge: 431
        default: 400
        }
    }

    /// Whether the connection must end with the response: after a head whose body cannot be
    /// delimited, what follows on the connection cannot be told from a next request.
    public var closesConnection: Bool {
        switch self {
        case .missingHost, .repeatedHost, .headTooLarge: false
        default: true
        }
    }

    public var message: String {
        switch self {
        case .lengthWithTransferEncoding: "A request may not carry both Content-Length and Transfer-Encoding."
        case .repeatedContentLength: "A request may carry Content-Length only once."
        case .unsupportedTransferCoding(let coding): "The transfer coding '\(coding)' is not supported; only chunked is."
        case .chunkedNotFinal: "The chunked transfer coding must be applied once, and last."
        case .missingHost: "An HTTP/1.1 request must carry a Host header."
        case .repeatedHost: "A request may carry Host only once."
        case .malformedField: "A header field has a NUL byte in its value, or is folded over several lines."
        case let .headTooLarge(maxBytes, maxFields):
            "The request line and header fields are larger than this service accepts: at most \(maxBytes) bytes and \(maxFields) fields."
        }
    }
}

/// The server's checks of a request head, made as libmicrohttpd hands its fields over.
///
/// libmicrohttpd 0.9.75 parses the head in place, in its connection's buffer: it overwrites each
/// line's CR LF (or bare LF) with NULs and takes a value to be the text up to its first NUL. A
/// value with a NUL in it is cut there, and the rest of its line stays between the cut value and
/// the next field's name. So, in a head it parsed, each field's name starts one or two bytes
/// after the previous field's value ends, and the head ends two to four bytes after the last
/// value (its line end and the empty line); anything else is a value cut short, or a folded
/// field (which libmicrohttpd moves). Checked by those addresses, a few comparisons a field.
/// A NUL right before a bare LF leaves the same bytes as a CR LF and cannot be told from one.
/// It compares addresses only (`Int(bitPattern:)` of libmicrohttpd's pointers) and reads nothing.
struct HeadCheck {
    /// The address where the previous field's value ended in libmicrohttpd's buffer.
    private var previousValueEnd: Int?
    private(set) var fieldMalformed = false

    /// Whether libmicrohttpd keeps fields where it parsed them, as the check above needs:
    /// verified for 0.9.75 and the versions before it.
    static let checksPlacement: Bool = {
        guard let text = MHD_get_version() else { return false }
        let parts = String(cString: text).split(separator: ".").map { Int($0) ?? Int.max }
        guard parts.count >= 3 else { return false }
        return (parts[0], parts[1], parts[2]) <= (0, 9, 75)
    }()

    mutating func begin() {
        previousValueEnd = nil
        fieldMalformed = false
    }

    /// Takes the next field's name and value by the addresses where libmicrohttpd holds them.
    mutating func see(name: Int, value: Int?, valueCount: Int) {
        if let end = previousValueEnd {
            let gap = name - end
            if gap != 1 && gap != 2 { fieldMalformed = true }
        }
        previousValueEnd = value.map { $0 + valueCount }
    }

    /// Ends the fields of a head that starts at address `headStart` and is `size` bytes long.
    mutating func end(headStart: Int, size: Int) {
        guard let end = previousValueEnd else { return }
        let gap = headStart + size - end
        if gap < 2 || gap > 4 { fieldMalformed = true }
    }
}

/// What the server checks of a head's fields: found again only when a connection's fields
/// changed (`RequestState.fieldsChanged`), since a keep-alive client sends the same ones.
struct FieldFraming {
    var violation: FramingViolation?
    var hasHost = false
    var count = 0

    init(fields: [(name: String, value: String)]) {
        var contentLengths = 0
        var hosts = 0
        var codings: [Substring] = []
        for index in fields.indices {
            let name = fields[index].name
            switch name.utf8.count {
            case 4 where name == "host": hosts += 1
            case 14 where name == "content-length": contentLengths += 1
            case 17 where name == "transfer-encoding":
                // Fields repeated make one list (RFC 9110 section 5.3); libmicrohttpd reads only the first.
                let listed = fields[index].value.split(separator: ",").map(Self.trimmed).filter { !$0.isEmpty }
                // An empty value names no coding libmicrohttpd can delimit a body by either.
                codings += listed.isEmpty ? [""] : listed
            default: break
            }
        }
        hasHost = hosts > 0
        count = fields.count
        if !codings.isEmpty {
            if contentLengths > 0 {
                violation = .lengthWithTransferEncoding
            } else if let unknown = codings.first(where: { $0.lowercased() != "chunked" }) {
                violation = .unsupportedTransferCoding(String(unknown))
            } else if codings.count > 1 {
                violation = .chunkedNotFinal
            }
        } else if contentLengths > 1 {
            violation = .repeatedContentLength
        }
        if violation == nil, hosts > 1 { violation = .repeatedHost }
    }

    private static func trimmed(_ text: Substring) -> Substring {
        var text = text
        while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
        while let last = text.last, last == " " || last == "\t" { text.removeLast() }
        return text
    }
}

extension HTTPServer {
    /// The violation of the head libmicrohttpd just parsed, if any: `fields` are its checks of
    /// the fields, `head` the placement check, `headStart` the address where the head begins
    /// (its method), `isHTTP11` whether the request's version is HTTP/1.1.
    func framingViolation(_ connection: OpaquePointer, headStart: Int?, isHTTP11: @autoclosure () -> Bool,
                          fields: FieldFraming, head: inout HeadCheck) -> FramingViolation? {
        if let violation = fields.violation { return violation }
        let size = cmhd_request_header_size(connection)
        if HeadCheck.checksPlacement, let headStart {
            head.end(headStart: headStart, size: size)
            if head.fieldMalformed { return .malformedField }
        }
        if size > configuration.maxHeadSize || fields.count > configuration.maxHeaderFields {
            return .headTooLarge(maxBytes: configuration.maxHeadSize, maxFields: configuration.maxHeaderFields)
        }
        if !fields.hasHost, isHTTP11() { return .missingHost }
        return nil
    }
}

extension HTTPServer {
    /// Answers a request refused for its framing (`request.transportCondition`): the handler
    /// makes the response, and the connection ends with it where what follows the head cannot
    /// be trusted to start a next request.
    func refuse(_ connection: OpaquePointer, _ violation: FramingViolation, _ request: HTTPRequest, _ state: RequestState) -> MHD_Result {
        var response = handler(request)
        if violation.closesConnection { response.headers.append(("Connection", "close")) }
        return respond(connection, response, state)
    }

    /// The client's address as text (`192.0.2.1:5000`, `[2001:db8::1]:5000`), when the server
    /// records it (`Configuration.recordsClientAddress`).
    func clientAddress(_ connection: OpaquePointer) -> String? {
        guard configuration.recordsClientAddress, let address = cmhd_client_address(connection) else { return nil }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        // What `inet_ntop` wrote, up to its terminating zero.
        func written() -> String {
            String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { inet in
                var bytes = inet.pointee.sin_addr
                guard inet_ntop(AF_INET, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                return written() + ":" + String(UInt16(bigEndian: inet.pointee.sin_port))
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { inet6 in
                var bytes = inet6.pointee.sin6_addr
                guard inet_ntop(AF_INET6, &bytes, &text, socklen_t(text.count)) != nil else { return nil }
                return "[" + written() + "]:" + String(UInt16(bigEndian: inet6.pointee.sin6_port))
            }
        default:
            return nil
        }
    }
}
