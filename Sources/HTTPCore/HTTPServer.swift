// Unsafe code, on purpose, and only here in the HTTP layers: this is the C boundary with
// libmicrohttpd and the threads' own storage. What is unsafe, and what keeps it sound:
// - libmicrohttpd's callbacks receive our objects as opaque pointers, lent unretained
//   (`_withUnsafeGuaranteedRef`), since the server, or the connection for its `RequestState`
//   (retained from its start to its end, `connectionNotifier`), holds them for as long as
//   libmicrohttpd may call back with them;
// - C memory arrives as raw pointers, read only within the callback that passed it, with the
//   lengths libmicrohttpd gives; a response's body is lent to libmicrohttpd with a retained
//   owner (`LentBody`) that is released in libmicrohttpd's free callback, never before;
// - `RequestState` skips the runtime's exclusivity checks because one thread at a time uses it
//   (see there);
// - `ThreadLocal` keeps each thread's value retained in its pthread key until the thread ends.
// The types the rest of the server shares (`HTTPRequest`, `HTTPResponse`, `EntityTagValue`,
// `ASCIICase`, the framing checks) are safe Swift: they get copies, spans and addresses as
// integers from here.
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An HTTP/1.1 server on libmicrohttpd: worker threads (a libmicrohttpd daemon each), each
/// polling its connections with epoll and calling the handler synchronously, and one thread that
/// accepts connections and deals them out to the workers in turn. Keep-alive, pipelining and
/// `Expect: 100-continue` are libmicrohttpd's. A response with a hold (`ResponseHold`) parks its
/// connection, suspended in libmicrohttpd, until the hold is released; the thread goes on
/// serving other connections.
public final class HTTPServer: @unchecked Sendable {
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    public struct Configuration: Sendable {
        public var host = "127.0.0.1"
        /// 0 picks a free port; `start()` returns the one bound.
        public var port: UInt16 = 8080
        public var threads = 2
        /// Bodies larger than this are not read: their requests reach the handler as
        /// `TransportCondition.bodyTooLarge` (a 413).
        public var maxBodySize = 10 * 1024 * 1024
        /// A connection that sends nothing for this long is closed.
        public var connectionTimeoutSeconds: UInt32 = 30
        /// Connections open at once; past it a new connection is answered `refusalAtLimit` (a
        /// 503) and closed, and the open ones are served as before.
        public var connectionLimit: UInt32 = 1024
        /// Connections open at once from one client address (0: no such limit); past it a new
        /// one is answered `refusalPerAddress` (a 429) and closed, so that one client cannot take
        /// every connection.
        public var connectionsPerAddressLimit: UInt32 = 256
        /// A request head (request line and header fields) not complete this long after its
        /// connection opened, or after the connection's previous response, closes the
        /// connection, however slowly it trickles in (the idle timeout alone would not).
        /// 0: no deadline.
        public var requestHeadTimeoutSeconds: Double = 20
        /// The bytes that all buffered request bodies together may hold (`BodyMemoryBudget`).
        public var bodyMemoryBudget = 64 * 1024 * 1024
        /// libmicrohttpd's per-connection memory for the request line and headers. It zeroes
        /// the pool between requests, so a larger pool costs on every request; 16 KiB holds a
        /// URI of 8 KiB and its headers. A request head beyond it is refused by libmicrohttpd
        /// itself with 414.
        public var connectionMemory = 16 * 1024
        /// The longest request line and header fields, and the most fields, the server takes;
        /// past either the handler is handed `TransportCondition.framing(.headTooLarge)` (a
        /// 431). Below what `connectionMemory` holds with room for a response (libmicrohttpd
        /// keeps each field's record, about 56 bytes, in it too; measured with 0.9.75: 11 KiB in
        /// 64 fields still fit, 12 KiB did not), so that libmicrohttpd's own page (431, or 414
        /// for a request line) answers only heads beyond about 15 KiB.
        public var maxHeadSize = 10 * 1024
        public var maxHeaderFields = 64
        /// Whether requests carry their client's address (`HTTPRequest.clientAddress`), for an
        /// access log: off, no request pays for finding and formatting it.
        public var recordsClientAddress = false
        /// The header fields the handler reads for most requests, found once per connection's
        /// fields (`HTTPRequest.header(slot:name:)`).
        public var headerIndex = HeaderIndex.none
        /// The PEM key and certificate (chain) to serve HTTPS with, through libmicrohttpd's own
        /// TLS; nil: plain HTTP. libmicrohttpd keeps them for the daemons' life, so new ones
        /// take a restart.
        public var tls: TLSCredentials?
        /// The answers to a connection refused at `connectionLimit` and past
        /// `connectionsPerAddressLimit`, before its request is read. Each is sent as it is, with
        /// `Connection: close` and its Content-Length, in one write that may be lost: the close
        /// is what matters, so keep them short.
        public var refusalAtLimit = HTTPResponse(status: 503, headers: [("Content-Type", "text/plain;charset=utf-8"), ("Retry-After", "1")],
                                                 body: Array("The server has no room for another connection; retry shortly.\n".utf8))
        public var refusalPerAddress = HTTPResponse(status: 429, headers: [("Content-Type", "text/plain;charset=utf-8"), ("Retry-After", "1")],
                                                    body: Array("This client address has too many connections open; retry when one closes.\n".utf8))

        public init() {}
    }

    public struct TLSCredentials: Sendable {
        public var keyPEM: String
        public var certificatePEM: String
        public init(keyPEM: String, certificatePEM: String) {
            self.keyPEM = keyPEM
            self.certificatePEM = certificatePEM
        }
    }

    /// Whether the libmicrohttpd in use was built with TLS.
    public static var supportsTLS: Bool { cmhd_tls_supported() != 0 }

    public struct StartError: Error, CustomStringConvertible {
        public let description: String
    }

    let configuration: Configuration
    let handler: Handler
    let bodyBudget: BodyMemoryBudget
    /// The listening socket, the thread that accepts its connections and the libmicrohttpd
    /// daemons, one per worker thread, that it deals them out to in turn (CMicroHTTPD's
    /// listener.h says why libmicrohttpd does not accept them itself).
    private var listener: UnsafeMutablePointer<cmhd_listener>?
    /// The TLS key and certificate as the daemons read them, freed when the server ends.
    private var tlsStrings: (key: UnsafeMutablePointer<CChar>?, certificate: UnsafeMutablePointer<CChar>?)?

    /// Guards `parked` and `stopping`; `unparked` signals `stop` that `parked` went down.
    private var parkingMutex = pthread_mutex_t()
    private var unparked = pthread_cond_t()
    /// Connections suspended until their response's hold is released, counted until that
    /// response is handed to libmicrohttpd. It must not stop while one is suspended (it
    /// aborts), and would drop the response if it stopped before sending it, so `stop` waits.
    private var parked = 0
    /// Set by `stop`: from then on a held response is waited for in the worker thread.
    private var stopping = false

    public init(configuration: Configuration, handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
        self.bodyBudget = BodyMemoryBudget(capacity: configuration.bodyMemoryBudget)
        pthread_mutex_init(&parkingMutex, nil)
        pthread_cond_init(&unparked, nil)
    }

    deinit {
        stop()
        if let tlsStrings {
            free(tlsStrings.key)
            free(tlsStrings.certificate)
        }
        pthread_cond_destroy(&unparked)
        pthread_mutex_destroy(&parkingMutex)
    }

    /// Starts listening and returns the bound port.
    public func start() throws -> UInt16 {
        // Request bodies are the server's largest blocks; their memory goes back to the system
        // when they are freed (shim.h).
        cmhd_map_large_blocks(1 << 20)
        let flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue | MHD_ALLOW_SUSPEND_RESUME.rawValue
        let host = configuration.host
        let opened: UnsafeMutablePointer<cmhd_listener>?
        if host.contains(":") {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = configuration.port.bigEndian
            guard inet_pton(AF_INET6, host, &address.sin6_addr) == 1 else { throw StartError(description: "invalid IPv6 address \(host)") }
            opened = Self.openListener(&address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = configuration.port.bigEndian
            let name = host == "localhost" ? "127.0.0.1" : host
            guard inet_pton(AF_INET, name, &address.sin_addr) == 1 else { throw StartError(description: "invalid IPv4 address \(host)") }
            opened = Self.openListener(&address)
        }
        guard let listener = opened else {
            throw StartError(description: "cannot listen on \(host):\(configuration.port) (\(String(cString: strerror(errno))))")
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let workers = max(1, configuration.threads)
        let connectionLimit = max(1, configuration.connectionLimit)
        let admitted = cmhd_listener_admit(listener, connectionLimit, configuration.connectionsPerAddressLimit,
                                           Int64(configuration.requestHeadTimeoutSeconds * 1000))
        guard admitted == 0 else {
            cmhd_listener_close(listener)
            throw StartError(description: "cannot track connections (\(String(cString: strerror(admitted))))")
        }
        let atLimit = configuration.refusalAtLimit.closingBytes, perAddress = configuration.refusalPerAddress.closingBytes
        let kept = atLimit.withUnsafeBytes { atLimit in
            perAddress.withUnsafeBytes { perAddress in
                cmhd_listener_refusals(listener, atLimit.baseAddress, atLimit.count, perAddress.baseAddress, perAddress.count)
            }
        }
        guard kept == 0 else {
            cmhd_listener_close(listener)
            throw StartError(description: "cannot keep the refusals of connections (\(String(cString: strerror(kept))))")
        }
        // Connections are told about from the daemons' threads, which start below.
        self.listener = listener
        if configuration.tls != nil, !Self.supportsTLS {
            cmhd_listener_close(listener)
            self.listener = nil
            throw StartError(description: "this libmicrohttpd was built without TLS")
        }
        // C copies that every daemon reads for its life (libmicrohttpd keeps the pointers).
        tlsStrings = configuration.tls.map { (strdup($0.keyPEM), strdup($0.certificatePEM)) }
        var daemons: [OpaquePointer?] = []
        for _ in 0..<workers {
            guard let daemon = cmhd_start_daemon(
                flags,
                accessHandler, context,
                requestCompleted, context,
                uriLogger, context,
                connectionNotifier, context,
                configuration.connectionTimeoutSeconds,
                configuration.connectionMemory,
                // Above what the listener ever hands one daemon (it admits `connectionLimit` in
                // all): libmicrohttpd must never find itself at its own limit (listener.h).
                connectionLimit + 16,
                tlsStrings?.key, tlsStrings?.certificate)
            else {
                let reason = String(cString: strerror(errno))
                daemons.forEach { MHD_stop_daemon($0) }
                cmhd_listener_close(listener)
                self.listener = nil
                throw StartError(description: "cannot start an HTTP worker on \(host):\(configuration.port) (\(reason))")
            }
            daemons.append(daemon)
        }
        // The listener owns the daemons from here, even when its thread cannot start.
        let error = cmhd_listener_serve(listener, daemons, UInt32(workers))
        guard error == 0 else {
            cmhd_listener_close(listener)
            self.listener = nil
            throw StartError(description: "cannot start the thread that accepts connections (\(String(cString: strerror(error))))")
        }
        return cmhd_listener_port(listener)
    }

    private static func openListener<Address>(_ address: inout Address) -> UnsafeMutablePointer<cmhd_listener>? {
        withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { cmhd_listener_open($0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// Stops accepting, finishes the requests in flight (held responses included) and joins the
    /// worker threads.
    public func stop() {
        guard let listener else { return }
        pthread_mutex_lock(&parkingMutex)
        stopping = true
        while parked > 0 { pthread_cond_wait(&unparked, &parkingMutex) }
        pthread_mutex_unlock(&parkingMutex)
        cmhd_listener_close(listener)
        self.listener = nil
    }

    /// Sends `response`, or parks the connection until its hold is released: the hold's
    /// callback stores the response in the request's state and resumes the connection, and
    /// libmicrohttpd then calls the access handler again, which sends it.
    func respond(_ connection: OpaquePointer, _ response: HTTPResponse, _ state: RequestState) -> MHD_Result {
        guard let hold = response.hold else { return send(connection, response) }
        pthread_mutex_lock(&parkingMutex)
        let park = !stopping
        if park { parked += 1 }
        pthread_mutex_unlock(&parkingMutex)
        guard park else { return send(connection, response.settled()) }
        // Suspended before the hold can release it: a resume that came first would be undone.
        MHD_suspend_connection(connection)
        let parkedConnection = ParkedConnection(connection: connection, state: state)
        hold.whenReleased { replacement in
            var ready = replacement ?? response
            ready.hold = nil
            parkedConnection.state.readyResponse = ready
            MHD_resume_connection(parkedConnection.connection)
        }
        return MHD_Result.YES
    }

    /// The listener's accounting of a connection (listener.h): it closed, its request head
    /// arrived, or its response went and its next head is due.
    fileprivate func connectionClosed(socket: Int32) {
        if let listener { cmhd_listener_release(listener, socket) }
    }

    fileprivate func headArrived(socket: Int32) {
        if let listener { cmhd_listener_head_arrived(listener, socket) }
    }

    fileprivate func awaitHead(socket: Int32) {
        if let listener { cmhd_listener_await_head(listener, socket) }
    }

    /// A parked connection's response was sent, or its connection ended without it.
    fileprivate func unpark() {
        pthread_mutex_lock(&parkingMutex)
        parked -= 1
        pthread_cond_broadcast(&unparked)
        pthread_mutex_unlock(&parkingMutex)
    }

    fileprivate func send(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        // libmicrohttpd sends the body from its own storage: a serializer's buffer lent as it
        // is, or an array's, which a retained box keeps alive and unchanged until libmicrohttpd
        // lets the response go. Copying it (MHD_RESPMEM_MUST_COPY) cost a malloc, a memcpy and
        // a free per response.
        let lent: any LentBody = response.lentBody ?? ArrayBody(response.body)
        let retained = Unmanaged.passRetained(lent as AnyObject)
        let bytes = lent.bytes
        guard let mhdResponse = MHD_create_response_from_buffer_with_free_callback_cls(
            bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), releaseLentBody, retained.toOpaque())
        else {
            retained.release()
            return MHD_Result.NO
        }
        // By index, not `for (name, value) in`: that copied each field through the generic
        // tuple witnesses. withCString lends native strings' own bytes; the implicit
        // conversion copies them.
        let headers = response.headers
        for index in headers.indices {
            headers[index].0.withCString { name in
                headers[index].1.withCString { value in _ = MHD_add_response_header(mhdResponse, name, value) }
            }
        }
        if let tag = response.entityTag {
            tag.withCString { value in _ = MHD_add_response_header(mhdResponse, "ETag", value) }
        }
        let result = MHD_queue_response(connection, UInt32(response.status), mhdResponse)
        MHD_destroy_response(mhdResponse)
        return result
    }
}

/// What the server knows of a connection's current request while libmicrohttpd feeds it in.
/// One per connection, made when the connection opens and reused by each request on it: a
/// keep-alive client sends the same header fields every time, and those are kept as they are
/// rather than made again (no allocation, no lower-casing); each target is copied into the
/// storage of the one before.
/// One thread at a time uses it: libmicrohttpd calls back for a connection from its worker
/// thread only, and a hold's release stores `readyResponse` before it resumes the connection
/// (libmicrohttpd's mutex orders the two). So its fields skip the runtime's exclusivity checks:
/// with them, `readyResponse` and the hold in every response made a `Person(7)` about 1,400
/// instructions dearer (callgrind); without them and with the hold a class, it costs what it did.
/// The connection holds its state from open to close (`connectionNotifier`), so libmicrohttpd's
/// callbacks use it unretained (`_withUnsafeGuaranteedRef`): taking it retained cost 13 retains
/// and releases a request, one per callback and header field.
final class RequestState {
    /// The target's bytes, copied into storage kept for the connection's next requests.
    @exclusivity(unchecked) var targetBytes: [UInt8] = []
    @exclusivity(unchecked) var started = false
    /// The fields of the request, names lower-cased. While a request's fields are collected,
    /// the first `fieldCount` are its own and the rest the previous request's.
    @exclusivity(unchecked) var headerFields: [(name: String, value: String)] = []
    /// Each field of `headerFields` as it was received, its name's bytes (in the sender's case)
    /// then its value's: the next request's fields are compared with these by memcmp. Compared
    /// with the Strings, through their UTF-8 views and a case-insensitive loop, a request of
    /// three fields cost about 340 instructions more (callgrind).
    @exclusivity(unchecked) var receivedFields: [(nameCount: Int, bytes: [UInt8])] = []
    @exclusivity(unchecked) var fieldCount = 0
    /// `HeaderIndex.positions(in: headerFields)`, found again only when a field changed.
    @exclusivity(unchecked) var knownFields = HeaderIndex.none.positions(in: [])
    @exclusivity(unchecked) var fieldsChanged = false
    /// The checks of the fields, found again when they changed, and of the head's bytes.
    @exclusivity(unchecked) var fieldFraming = FieldFraming(fields: [])
    @exclusivity(unchecked) var headCheck = HeadCheck()
    @exclusivity(unchecked) var body: [UInt8] = []
    /// The room `body` holds in the process's body budget; given back when the request is over.
    @exclusivity(unchecked) var bodyReservation = 0
    /// The body was too large, or found no room in the budget: it is not kept, and the handler
    /// is told why.
    @exclusivity(unchecked) var bodyRefusal: TransportCondition?
    /// The connection's socket, by which the listener knows it.
    @exclusivity(unchecked) var socket: Int32 = -1
    /// The response of a parked connection, once its hold is released.
    @exclusivity(unchecked) var readyResponse: HTTPResponse?

    init() {
        // Room for a usual request's fields, so that collecting them allocates once.
        headerFields.reserveCapacity(12)
        receivedFields.reserveCapacity(12)
        targetBytes.reserveCapacity(128)
    }

    /// Makes the state the one of a new request on its connection, whose target is `uri`.
    func begin(target uri: UnsafePointer<CChar>?) {
        guard let uri else { return "/".withCString { begin(target: $0) } }
        let bytes = UnsafeBufferPointer(start: UnsafeRawPointer(uri).assumingMemoryBound(to: UInt8.self), count: strlen(uri))
        // Into the same storage: the previous request of the connection is over, so it is
        // uniquely referenced (else the array copies it first, as it must).
        targetBytes.removeAll(keepingCapacity: true)
        targetBytes.append(contentsOf: bytes)
        started = false
        fieldCount = 0
        fieldsChanged = false
        bodyRefusal = nil
    }

    /// Makes room for `count` body bytes in all, in `budget`: the whole declared length at once,
    /// a body of unknown length in doubling steps. False when the budget has no room.
    func reserveBody(_ count: Int, in budget: BodyMemoryBudget, limit: Int) -> Bool {
        guard count > bodyReservation else { return true }
        let target = min(limit, max(count, 2 * bodyReservation, 64 * 1024))
        guard budget.reserve(target - bodyReservation) else { return false }
        bodyReservation = target
        return true
    }

    /// Lets go of the body and its room in the budget. The storage goes when no request made from
    /// it holds it any more; a body is never kept for the connection's next request.
    func releaseBody(to budget: BodyMemoryBudget) {
        if body.capacity > 0 { body = [] }
        budget.release(bodyReservation)
        bodyReservation = 0
    }

    /// Takes the next header field of the request: the previous request's field at its place
    /// is kept when this one is the same.
    func collect(name: UnsafeBufferPointer<UInt8>, value: UnsafeRawBufferPointer) {
        let index = fieldCount
        fieldCount += 1
        let name = UnsafeRawBufferPointer(name)
        if index < receivedFields.count {
            let same = receivedFields.withUnsafeBufferPointer { fields in
                fields[index].nameCount == name.count && fields[index].bytes.withUnsafeBytes { received in
                    received.count == name.count + value.count
                        && Self.bytes(received.baseAddress, equal: name) && Self.bytes(received.baseAddress.map { $0 + name.count }, equal: value)
                }
            }
            if same { return }
            receivedFields[index] = (name.count, Array(name) + Array(value))
            headerFields[index] = (ASCIICase.lowercased(name.assumingMemoryBound(to: UInt8.self).span), String(decoding: value, as: UTF8.self))
        } else {
            receivedFields.append((name.count, Array(name) + Array(value)))
            headerFields.append((ASCIICase.lowercased(name.assumingMemoryBound(to: UInt8.self).span), String(decoding: value, as: UTF8.self)))
        }
        fieldsChanged = true
    }

    /// Whether the `bytes.count` bytes at `start` are `bytes`.
    private static func bytes(_ start: UnsafeRawPointer?, equal bytes: UnsafeRawBufferPointer) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard let start, let base = bytes.baseAddress else { return false }
        return memcmp(start, base, bytes.count) == 0
    }

    /// Ends the collection of the request's fields, finding those of the server's index again
    /// if they changed (only then is the index touched: the server, and the index's storage, are
    /// shared by every worker thread).
    func fieldsCollected(for server: HTTPServer) {
        if fieldCount < headerFields.count {
            headerFields.removeLast(headerFields.count - fieldCount)
            receivedFields.removeLast(receivedFields.count - fieldCount)
            fieldsChanged = true
        }
        if fieldsChanged {
            knownFields = server.configuration.headerIndex.positions(in: headerFields)
            fieldFraming = FieldFraming(fields: headerFields)
        }
    }

    func request(method: String, clientAddress: String?, condition: TransportCondition? = nil) -> HTTPRequest {
        var request = HTTPRequest(method: method, targetBytes: targetBytes, headerFields: headerFields, knownFields: knownFields, body: body)
        request.clientAddress = clientAddress
        request.transportCondition = condition
        return request
    }
}

/// An array body while libmicrohttpd sends it. The array is never mutated and this box holds
/// it, so its storage neither moves nor goes away before `releaseLentBody`.
private final class ArrayBody: LentBody {
    let array: [UInt8]

    init(_ array: [UInt8]) { self.array = array }

    var bytes: UnsafeBufferPointer<UInt8> { array.withUnsafeBufferPointer { $0 } }
}

/// libmicrohttpd's free callback for a body it was lent: called once, when the response is destroyed.
private let releaseLentBody: MHD_ContentReaderFreeCallback = { context in
    guard let context else { return }
    Unmanaged<AnyObject>.fromOpaque(context).release()
}

/// A suspended connection and its request, handed to the thread that releases its hold; the
/// connection is used there only to resume it, which libmicrohttpd allows from any thread.
private struct ParkedConnection: @unchecked Sendable {
    let connection: OpaquePointer
    let state: RequestState
}

/// libmicrohttpd's notice that a connection opened or closed: each connection has a
/// `RequestState` of its own while it is open.
private let connectionNotifier: MHD_NotifyConnectionCallback = { cls, connection, socketContext, code in
    guard let cls, let socketContext else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_STARTED:
        let state = RequestState()
        if let connection { state.socket = cmhd_connection_socket(connection) }
        socketContext.pointee = Unmanaged.passRetained(state).toOpaque()
    case MHD_ConnectionNotificationCode.CONNECTION_NOTIFY_CLOSED:
        if let pointer = socketContext.pointee {
            let state = Unmanaged<RequestState>.fromOpaque(pointer).takeRetainedValue()
            state.releaseBody(to: server.bodyBudget)
            server.connectionClosed(socket: state.socket)
        }
        socketContext.pointee = nil
    default:
        break
    }
}

/// Called first for every request, with the raw target before libmicrohttpd decodes it; the
/// connection's state, begun for this request, rides along as the request's context pointer.
private let uriLogger: cmhd_uri_log_callback = { _, uri, connection in
    guard let connection, let pointer = cmhd_socket_context(connection) else { return nil }
    Unmanaged<RequestState>.fromOpaque(pointer)._withUnsafeGuaranteedRef { $0.begin(target: uri) }
    return pointer
}

private let requestCompleted: MHD_RequestCompletedCallback = { cls, _, context, _ in
    guard let cls, let context, let pointer = context.pointee else { return }
    // The server unretained too: every worker's requests end here, and a count they all
    // changed moved its cache line between the cores with every request.
    Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { server in
        Unmanaged<RequestState>.fromOpaque(pointer)._withUnsafeGuaranteedRef { state in
            // A parked connection that ended before its response was sent (the client went away).
            if state.readyResponse != nil {
                state.readyResponse = nil
                server.unpark()
            }
            state.releaseBody(to: server.bodyBudget)
            server.awaitHead(socket: state.socket)
        }
    }
    context.pointee = nil
}

private let headerCollector: MHD_KeyValueIteratorN = { context, _, key, keySize, value, valueSize in
    guard let context, let key else { return MHD_Result.YES }
    // With the lengths libmicrohttpd already knows: String(cString:) measured each string first.
    Unmanaged<RequestState>.fromOpaque(context)._withUnsafeGuaranteedRef { state in
        state.headCheck.see(name: Int(bitPattern: key), value: value.map { Int(bitPattern: $0) }, valueCount: valueSize)
        state.collect(name: UnsafeBufferPointer(start: UnsafeRawPointer(key).assumingMemoryBound(to: UInt8.self), count: keySize),
                      value: UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize))
    }
    return MHD_Result.YES
}

private let accessHandler: MHD_AccessHandlerCallback = { cls, connection, _, method, version, uploadData, uploadSize, context in
    guard let cls, let connection, let context, let pointer = context.pointee, let uploadSize else { return MHD_Result.NO }
    // The server object is shared by every worker thread: a retain and release of it per call
    // were atomic writes to one cache line from both cores. It outlives its daemon's callbacks.
    return Unmanaged<HTTPServer>.fromOpaque(cls)._withUnsafeGuaranteedRef { server in
        Unmanaged<RequestState>.fromOpaque(pointer)._withUnsafeGuaranteedRef { state in
            access(server, connection, method, version, uploadData, uploadSize, state)
        }
    }
}

private func access(_ server: HTTPServer, _ connection: OpaquePointer, _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?,
                    _ uploadData: UnsafePointer<CChar>?, _ uploadSize: UnsafeMutablePointer<Int>, _ state: RequestState) -> MHD_Result {
    let pointer = Unmanaged.passUnretained(state).toOpaque()

    if let ready = state.readyResponse {
        state.readyResponse = nil
        defer { server.unpark() }
        return server.send(connection, ready)
    }
    if !state.started {
        state.started = true
        server.headArrived(socket: state.socket)
        state.headCheck.begin()
        MHD_get_connection_values_n(connection, MHD_ValueKind.HEADER_KIND, headerCollector, pointer)
        state.fieldsCollected(for: server)
        if let violation = server.framingViolation(connection, headStart: method.map { Int(bitPattern: $0) },
                                                   isHTTP11: version.map { strcmp($0, "HTTP/1.1") == 0 } ?? false,
                                                   fields: state.fieldFraming, head: &state.headCheck) {
            return server.refuse(connection, violation, state.request(method: methodName(method), clientAddress: server.clientAddress(connection),
                                                                      condition: .framing(violation)), state)
        }
        let lengthField = Int(state.knownFields[HeaderIndex.contentLengthSlot])
        if lengthField < Int(HeaderIndex.unindexed), let length = Int(state.headerFields[lengthField].value), length > 0 {
            let limit = server.configuration.maxBodySize
            if length > limit {
                let request = state.request(method: methodName(method), clientAddress: server.clientAddress(connection), condition: .bodyTooLarge(limit: limit))
                return server.respond(connection, server.handler(request), state)
            }
            // The declared body's room is taken before a byte of it is read, and its storage
            // made once rather than doubled as it arrives.
            guard state.reserveBody(length, in: server.bodyBudget, limit: length) else {
                let request = state.request(method: methodName(method), clientAddress: server.clientAddress(connection), condition: .bodyMemoryExhausted)
                return server.respond(connection, server.handler(request), state)
            }
            state.body.reserveCapacity(length)
        }
        return MHD_Result.YES
    }
    if uploadSize.pointee > 0 {
        let size = uploadSize.pointee
        if state.body.count + size > server.configuration.maxBodySize {
            state.bodyRefusal = .bodyTooLarge(limit: server.configuration.maxBodySize)
            state.releaseBody(to: server.bodyBudget)
        } else if let uploadData, state.bodyRefusal == nil {
            if state.reserveBody(state.body.count + size, in: server.bodyBudget, limit: server.configuration.maxBodySize) {
                uploadData.withMemoryRebound(to: UInt8.self, capacity: size) { bytes in
                    state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: size))
                }
            } else {
                state.bodyRefusal = .bodyMemoryExhausted
                state.releaseBody(to: server.bodyBudget)
            }
        }
        uploadSize.pointee = 0
        return MHD_Result.YES
    }
    let request = state.request(method: methodName(method), clientAddress: server.clientAddress(connection),
                                condition: state.bodyRefusal)
    let response = server.handler(request)
    // The handler has read the body: its room goes back now, not when the response is sent.
    if state.bodyReservation > 0 { state.releaseBody(to: server.bodyBudget) }
    return server.respond(connection, response, state)
}

/// The request's method as a String; GET, by far the most frequent, as a literal, which costs no
/// copy of the C string (about 200 instructions a request, callgrind).
private func methodName(_ method: UnsafePointer<CChar>?) -> String {
    guard let method else { return "GET" }
    return strcmp(method, "GET") == 0 ? "GET" : String(cString: method)
}

/// A body in storage of its own (a serializer's buffer), which the server lends to
/// libmicrohttpd as it is. The storage must not change, and stays alive as long as the object.
public protocol LentBody: AnyObject, Sendable {
    var bytes: UnsafeBufferPointer<UInt8> { get }
}

extension EntityTagValue {
    /// Lends the header value as a C string, a weak tag's written on the stack.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        switch self {
        case .text(let text):
            return text.withCString(body)
        case .weak(let value):
            // The tag and a NUL.
            let length = Self.weakTagLength
            return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: length + 1) { buffer in
                do {
                    var out = buffer.mutableSpan
                    Self.writeWeakTag(of: value, to: &out)
                }
                buffer[length] = 0
                return UnsafeRawPointer(buffer.baseAddress!).withMemoryRebound(to: CChar.self, capacity: length + 1, body)
            }
        }
    }
}

/// A value per thread, created on first use in that thread and released when the thread ends.
/// The service keeps each server thread's `WorkerContext` this way.
public final class ThreadLocal<Value: AnyObject>: @unchecked Sendable {
    /// A `let`: `get` runs on every request, and a `var` of a class costs a runtime exclusivity
    /// check on each read.
    private let key: pthread_key_t
    private let make: () -> Value

    public init(_ make: @escaping () -> Value) {
        self.make = make
        var key = pthread_key_t()
        pthread_key_create(&key) { pointer in
            // Runs when a thread that holds a value exits.
            if let pointer { Unmanaged<AnyObject>.fromOpaque(pointer).release() }
        }
        self.key = key
    }

    deinit {
        // pthread_key_delete drops values without running their destructor, so an owner must
        // outlive the threads that use it (a server stops its threads first); its own value on
        // this thread is released here rather than dropped.
        if let pointer = pthread_getspecific(key) {
            pthread_setspecific(key, nil)
            Unmanaged<Value>.fromOpaque(pointer).release()
        }
        pthread_key_delete(key)
    }

    /// `body` with the calling thread's value, lent without a retain: the thread's slot holds it
    /// until the thread ends, and only this thread could replace it. For what a request does
    /// with the value and lets go of: `get()` hands out a reference of its own, a retain and
    /// release each time.
    @inline(__always)
    public func withValue<Result>(_ body: (Value) throws -> Result) rethrows -> Result {
        if let pointer = pthread_getspecific(key) {
            return try Unmanaged<Value>.fromOpaque(pointer)._withUnsafeGuaranteedRef(body)
        }
        return try body(get())
    }

    public func get() -> Value {
        if let pointer = pthread_getspecific(key) {
            return Unmanaged<Value>.fromOpaque(pointer).takeUnretainedValue()
        }
        let value = make()
        pthread_setspecific(key, Unmanaged.passRetained(value).toOpaque())
        return value
    }
}
