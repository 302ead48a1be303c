// The binding to libpq: the only file that holds its C pointers (PGconn, PGresult, the
// parameter arrays libpq reads). It is unsafe code because libpq is C: a result's values are
// lent as pointers into the PGresult, which stays alive as long as its `PostgresResult`, and
// the parameter arrays are built in buffers that outlive the call that reads them. Everything
// above this file sees `SQLValue`, `StoredColumn` and typed errors.
import CLibPQ
import ODataStore

/// One connection to PostgreSQL, used by one thread at a time (a gateway worker keeps its own),
/// with its statements prepared once and kept by SQL text. A connection that broke (the server
/// restarted, the network dropped) reports the failure of the request that saw it and is
/// re-established at the start of the next one.
public final class PostgresConnection {
    /// The libpq connection URI (or key=value string); the password comes from it, PGPASSWORD
    /// or ~/.pgpass, as libpq reads them.
    public let url: String
    private var handle: OpaquePointer?
    /// Prepared statements by SQL text, with their server-side names.
    private var prepared: [String: String] = [:]
    /// The statements handed to the builders (`SQLConnection.statement`), by text; bounded as
    /// the prepared ones are.
    private var statements: [StatementKey: PostgresStatement] = [:]
    private var preparedCount = 0
    /// A BEGIN to send in the same round trip as the next statement (`beginWithNextStatement`).
    private var deferredBegin: String?
    /// A COMMIT sent whose answer is read before the connection's next use (`commitWithoutWaiting`).
    private var commitInFlight = false
    /// How this connection's read scopes ran; a store's reader connections share one.
    public var readScopeTally = ReadScopeTally()
    /// The read scope `readScope` runs, while it runs (`SnapshotScope`).
    var snapshotScope: SnapshotScope?
    /// What the last snapshot scope of a read plan ran (`ScopePlan`): the next such scope
    /// sends its COMMIT with its last statement, and all its statements at once when their
    /// parameters are the first's.
    var scopePlans: [ScopePlan.Key: ScopePlan] = [:]
    /// Plans whose scopes ran more statements than the one before: their COMMIT is sent after
    /// the scope, as for a plan never seen.
    var unpredictableScopes: Set<ScopePlan.Key> = []
    /// Past this many prepared statements the connection forgets them all (`DEALLOCATE ALL`):
    /// statement shapes come from requests, and the server keeps each one's plan.
    public static let preparedStatementLimit = 512

    /// Connects; throws a `PostgresError` whose `isConnectionFailure` is set when the server
    /// cannot be reached or refuses the login.
    public init(url: String) throws(PostgresError) {
        self.url = url
        try connect()
    }

    deinit { if let handle { PQfinish(handle) } }

    /// Whether the last use found the connection broken; the next statement reconnects.
    public var isBroken: Bool {
        guard let handle else { return true }
        return PQstatus(handle) != CONNECTION_OK
    }

    /// Whether a transaction is open (or failed and not yet rolled back), or will be opened
    /// by the next statement.
    public var isInTransaction: Bool {
        if deferredBegin != nil { return true }
        finishCommitInFlight()
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR
    }

    /// The server's version number (150004 for 15.4).
    public var serverVersion: Int {
        guard let handle else { return 0 }
        return Int(PQserverVersion(handle))
    }

    func cachedStatement(_ key: StatementKey, _ make: () -> PostgresStatement) -> PostgresStatement {
        if let statement = statements[key] { return statement }
        if statements.count >= Self.preparedStatementLimit { statements.removeAll() }
        let statement = make()
        statements[key] = statement
        return statement
    }

    private func connect() throws(PostgresError) {
        if let handle { PQfinish(handle) }
        handle = nil
        prepared.removeAll()
        guard let connection = PQconnectdb(url) else {
            throw PostgresError(kind: .connectionFailure, sqlState: nil, message: "libpq could not allocate a connection")
        }
        guard PQstatus(connection) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(connection))
            PQfinish(connection)
            throw PostgresError(kind: .connectionFailure, sqlState: nil, message: message)
        }
        handle = connection
        // Timestamps are never stored as such (DateTime is milliseconds in a BIGINT), but the
        // session's own settings must not change how values read: UTF-8 text, ISO dates.
        let result = PQexec(connection, "SET client_encoding = 'UTF8'; SET DateStyle = 'ISO'; SET extra_float_digits = 1")
        let status = result.map(PQresultStatus)
        PQclear(result)
        guard status == PGRES_COMMAND_OK else { throw failure(nil, sql: "SET client_encoding") }
    }

    /// Opens a transaction with `begin` (`BEGIN …`) when the next statement runs, sent in the
    /// same round trip as that statement (libpq's pipeline mode): a read of one statement then
    /// waits for the server once, not twice. With no statement, no transaction is opened.
    func beginWithNextStatement(_ begin: String) {
        deferredBegin = begin
    }

    /// Ends the transaction `beginWithNextStatement` asked for: sends COMMIT without waiting for
    /// its answer, which the connection's next use reads first. Only for a read-only
    /// transaction, whose commit changes nothing and cannot fail in a way its reader cares about.
    /// Returns false when the COMMIT could not be sent (the caller rolls back).
    func commitWithoutWaiting() -> Bool {
        if deferredBegin != nil {
            deferredBegin = nil
            return true
        }
        guard let handle, PQstatus(handle) == CONNECTION_OK, PQtransactionStatus(handle) == PQTRANS_INTRANS else { return false }
        guard PQsendQuery(handle, "COMMIT") == 1 else { return false }
        commitInFlight = true
        return true
    }

    /// Forgets a BEGIN not yet sent (the body failed before any statement).
    func dropDeferredBegin() { deferredBegin = nil }

    /// Reads the answer of the COMMIT sent without waiting. Its failure is not reported: the
    /// transaction only read, and a broken connection is found (and re-established) by `live()`.
    private func finishCommitInFlight() {
        guard commitInFlight else { return }
        commitInFlight = false
        guard let handle else { return }
        // By the next request the answer has almost always arrived: one non-blocking read
        // takes it, where PQgetResult alone would first poll the socket (a system call per
        // multi-statement read). When it has not arrived, PQgetResult waits for it.
        if PQconsumeInput(handle) == 1 {
            while PQisBusy(handle) == 0, let result = PQgetResult(handle) { PQclear(result) }
            if PQisBusy(handle) == 0 { return }
        }
        while let result = PQgetResult(handle) { PQclear(result) }
    }

    /// The connection, re-established when it broke; never inside a transaction, whose work
    /// was lost with the old connection.
    private func live() throws(PostgresError) -> OpaquePointer {
        finishCommitInFlight()
        if let handle, PQstatus(handle) == CONNECTION_OK { return handle }
        try connect()
        return handle!
    }

    /// Runs `sql` (one or more statements, no parameters) with libpq's simple protocol:
    /// transaction control and DDL.
    public func executeSimple(_ sql: String) throws(PostgresError) {
        let connection = try live()
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        let status = result.map(PQresultStatus)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK else { throw failure(result, sql: sql) }
    }

    /// Runs `sql` as a prepared statement (prepared on first use on this connection) with
    /// `parameters` as `$1`, `$2`, ...: the server infers each parameter's type from where it
    /// stands, as it would a quoted constant's (a Boolean column's `1` is true, a key list an
    /// array of the key's type, a Decimal's text a `numeric`); the dialect casts where nothing
    /// says (`PostgresDialect.parameter(_:of:)`). Blobs are sent in binary format.
    public func query(_ sql: String, _ parameters: [SQLValue] = []) throws(PostgresError) -> PostgresResult {
        for parameter in parameters {
            // libpq reads a text parameter up to its first NUL, which would cut it silently.
            if case .text(let text) = parameter, text.utf8.contains(0) {
                throw PostgresError(sqlState: "22021", message: "text holds U+0000 (NUL), which PostgreSQL cannot store", sql: sql)
            }
        }
        switch try stepSnapshotScope(sql, parameters) {
        case .prefetched(let outcome):
            return try outcome.get()
        case .run(let commitAfter):
            let connection = try live()
            let name = try statementName(sql, connection)
            guard deferredBegin != nil || commitAfter else { return try executePrepared(name, parameters, sql: sql, connection) }
            let begin = deferredBegin
            deferredBegin = nil
            let outcomes = try pipelined(begin, [Pipelined(name: name, sql: sql, parameters: parameters)], commit: commitAfter, connection)
            if commitAfter { snapshotScope?.ended = PQtransactionStatus(connection) == PQTRANS_IDLE }
            return try outcomes[0].get()
        case .runWithPredicted(let predicted):
            let connection = try live()
            let texts = [sql] + predicted.map(\.sql)
            var names = try texts.map { (text) throws(PostgresError) in try statementName(text, connection) }
            // Preparing one may have forgotten the others (`preparedStatementLimit`), at most once.
            if zip(texts, names).contains(where: { prepared[$0] != $1 }) {
                names = try texts.map { (text) throws(PostgresError) in try statementName(text, connection) }
            }
            let values = [parameters] + predicted.map(\.parameters)
            let statements = texts.indices.map { Pipelined(name: names[$0], sql: texts[$0], parameters: values[$0]) }
            let begin = deferredBegin
            deferredBegin = nil
            let outcomes = try pipelined(begin, statements, commit: true, connection)
            snapshotScope?.ended = PQtransactionStatus(connection) == PQTRANS_IDLE
            snapshotScope?.prefetched = zip(predicted, outcomes.dropFirst()).map(PrefetchedStatement.init)
            readScopeTally.countPrefetched(predicted.count)
            return try outcomes[0].get()
        }
    }

    /// The prepared statement `name` run and waited for: its rows, or its failure thrown.
    private func executePrepared(_ name: String, _ parameters: [SQLValue], sql: String,
                                 _ connection: OpaquePointer) throws(PostgresError) -> PostgresResult {
        let result = Self.withParameters(parameters) { count, values, lengths, formats in
            PQexecPrepared(connection, name, count, values, lengths, formats, 0)
        }
        let status = result.map(PQresultStatus)
        guard status == PGRES_TUPLES_OK || status == PGRES_COMMAND_OK, let result else {
            let error = failure(result, sql: sql)
            PQclear(result)
            throw error
        }
        return PostgresResult(result)
    }

    /// What `query` does with a statement, as its read scope decides.
    private enum ScopeStep {
        /// Run it, with the scope's COMMIT in its round trip when it is the scope's last.
        case run(commitAfter: Bool)
        /// Run it and the scope's later statements, predicted, with the COMMIT, in one round trip.
        case runWithPredicted([PredictedStatement])
        /// It was sent ahead, in the round trip of the scope's first statement: its outcome.
        case prefetched(Result<PostgresResult, PostgresError>)
    }

    /// Counts `sql` in the running read scope and says how to run it. A statement past the
    /// scope's snapshot (its COMMIT sent, or a lone statement run), or one that is not the
    /// statement sent ahead for it, would read another snapshot: it is refused without being
    /// sent, and the scope is marked to run again.
    private func stepSnapshotScope(_ sql: String, _ parameters: [SQLValue]) throws(PostgresError) -> ScopeStep {
        guard var scope = snapshotScope else { return .run(commitAfter: false) }
        defer { snapshotScope = scope }
        if !scope.prefetched.isEmpty {
            let next = scope.prefetched.removeFirst()
            if next.statement == PredictedStatement(sql: sql, parameters: parameters) {
                scope.statements += 1
                return .prefetched(next.outcome)
            }
            scope.prefetched.removeAll()
            scope.ended = true
            scope.mispredicted = true
        }
        guard !scope.ended else {
            scope.overran = true
            scope.refusedSQL = sql
            throw PostgresError(kind: .readScopeOverrun, sqlState: nil,
                                message: "a read scope ran more statements than expected", sql: sql)
        }
        if scope.statements == 0 {
            let key = scope.plan.map(ScopePlan.Key.plan) ?? .firstStatement(sql)
            scope.planKey = key
            if scope.inTransaction && !unpredictableScopes.contains(key) {
                if let plan = scopePlans[key] {
                    scope.expected = plan.length
                    if let predicted = plan.predicted(from: parameters) {
                        scope.statements = 1
                        return .runWithPredicted(predicted)
                    }
                } else {
                    scope.learningFrom = parameters
                }
            }
        } else if let first = scope.learningFrom {
            scope.observed.append(ScopePlan.later(sql, parameters: parameters, firstParameters: first))
        }
        scope.statements += 1
        guard scope.expected == scope.statements else { return .run(commitAfter: false) }
        // Without a transaction the statement is its own snapshot, and ends the scope's.
        if !scope.inTransaction { scope.ended = true }
        return .run(commitAfter: scope.inTransaction)
    }

    /// A prepared statement to send in a pipeline.
    private struct Pipelined {
        let name: String
        let sql: String
        let parameters: [SQLValue]
    }

    /// `begin` (when given), the prepared `statements` and, with `commit`, COMMIT, in one round
    /// trip: sent in a pipeline, then every answer read; each statement's outcome, in order. A
    /// failed BEGIN, or a pipeline that could not be sent, is thrown. After a failed statement
    /// the server skips the rest (their outcome is that failure's) and the COMMIT: the
    /// transaction is left failed, for its scope to roll back; a failed COMMIT leaves it open.
    private func pipelined(_ begin: String?, _ statements: [Pipelined], commit: Bool,
                           _ connection: OpaquePointer) throws(PostgresError) -> [Result<PostgresResult, PostgresError>] {
        guard PQenterPipelineMode(connection) == 1 else {
            if let begin { try executeSimple(begin) }
            var outcomes: [Result<PostgresResult, PostgresError>] = []
            for statement in statements {
                let outcome = Result { () throws(PostgresError) in
                    try executePrepared(statement.name, statement.parameters, sql: statement.sql, connection)
                }
                outcomes.append(outcome)
                if case .failure = outcome { break }
            }
            if commit, case .success = outcomes.last { try? executeSimple("COMMIT") }
            while outcomes.count < statements.count { outcomes.append(outcomes[outcomes.count - 1]) }
            return outcomes
        }
        var sent = begin.map { PQsendQueryParams(connection, $0, 0, nil, nil, nil, nil, 0) == 1 } ?? true
        for statement in statements where sent {
            sent = Self.withParameters(statement.parameters, { count, values, lengths, formats in
                PQsendQueryPrepared(connection, statement.name, count, values, lengths, formats, 0)
            }) == 1
        }
        sent = sent
            && (!commit || PQsendQueryParams(connection, "COMMIT", 0, nil, nil, nil, nil, 0) == 1)
            && PQpipelineSync(connection) == 1
        // Each statement's answer is its results then a null; the sync's is PIPELINE_SYNC. A
        // broken connection answers nulls, hence the bound.
        var results: [OpaquePointer] = []
        var nulls = 0
        let sentCount = (begin == nil ? 0 : 1) + statements.count + (commit ? 1 : 0)
        while sent && nulls <= sentCount {
            guard let result = PQgetResult(connection) else {
                nulls += 1
                if PQstatus(connection) != CONNECTION_OK { break }
                continue
            }
            if PQresultStatus(result) == PGRES_PIPELINE_SYNC {
                PQclear(result)
                break
            }
            results.append(result)
        }
        PQexitPipelineMode(connection)
        // Every result but the statements' successful ones is released here.
        var kept: Set<OpaquePointer> = []
        defer { results.filter { !kept.contains($0) }.forEach { PQclear($0) } }
        guard sent else { throw failure(nil, sql: begin ?? statements.first?.sql) }
        if let begin {
            guard let beginResult = results.first, PQresultStatus(beginResult) == PGRES_COMMAND_OK else {
                throw failure(results.first, sql: begin)
            }
        }
        let offset = begin == nil ? 0 : 1
        var outcomes: [Result<PostgresResult, PostgresError>] = []
        var firstFailure: PostgresError?
        for (index, statement) in statements.enumerated() {
            if let firstFailure {
                outcomes.append(.failure(firstFailure))
                continue
            }
            let result = results.count > offset + index ? results[offset + index] : nil
            if let result, [PGRES_TUPLES_OK, PGRES_COMMAND_OK].contains(PQresultStatus(result)) {
                kept.insert(result)
                outcomes.append(.success(PostgresResult(result)))
            } else {
                let error = failure(result, sql: statement.sql)
                firstFailure = error
                outcomes.append(.failure(error))
            }
        }
        return outcomes
    }

    /// Every row of `sql`'s result, owned.
    public func rows(_ sql: String, _ parameters: [SQLValue] = []) throws(PostgresError) -> [[SQLValue]] {
        try query(sql, parameters).rows
    }

    private func statementName(_ sql: String, _ connection: OpaquePointer) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        if prepared.count >= Self.preparedStatementLimit && PQtransactionStatus(connection) != PQTRANS_INERROR {
            try executeSimple("DEALLOCATE ALL")
            prepared.removeAll()
        }
        preparedCount += 1
        let name = "cd" + String(preparedCount)
        // No parameter types: the server infers them, once, for every later run.
        let result = PQprepare(connection, name, sql, 0, nil)
        defer { PQclear(result) }
        guard result.map(PQresultStatus) == PGRES_COMMAND_OK else { throw failure(result, sql: sql) }
        prepared[sql] = name
        return name
    }

    /// Calls `body` with libpq's parameter arrays for `parameters`: every value's bytes in one
    /// buffer (text NUL-terminated, blobs in binary format), and pointers into it.
    private static func withParameters<R>(
        _ parameters: [SQLValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        if parameters.isEmpty { return body(0, nil, nil, nil) }
        var bytes: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for parameter in parameters {
            var text: String?
            switch parameter {
            case .null:
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            case .integer(let value): text = String(value)
            case .real(let value):
                text = value.isNaN ? "NaN" : value.isInfinite ? (value < 0 ? "-Infinity" : "Infinity") : String(value)
            case .text(let value): text = value
            case .blob(let value):
                offsets.append(bytes.count)
                lengths.append(Int32(value.count))
                formats.append(1)
                bytes.append(contentsOf: value)
                bytes.append(0)
                continue
            }
            offsets.append(bytes.count)
            let utf8 = text!.utf8
            lengths.append(Int32(utf8.count))
            formats.append(0)
            bytes.append(contentsOf: utf8)
            bytes.append(0)
        }
        return bytes.withUnsafeBufferPointer { buffer in
            let base = UnsafeRawPointer(buffer.baseAddress!).assumingMemoryBound(to: CChar.self)
            let pointers: [UnsafePointer<CChar>?] = offsets.map { $0.map { base + $0 } }
            return pointers.withUnsafeBufferPointer { values in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(Int32(parameters.count), values.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    /// The error of a failed call: the server's SQLSTATE and message when it sent them, and
    /// a connection failure when the connection is gone (the next statement reconnects).
    private func failure(_ result: OpaquePointer?, sql: String?) -> PostgresError {
        let broken = handle.map { PQstatus($0) != CONNECTION_OK } ?? true
        var sqlState: String?
        var message = ""
        if let result {
            if let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))) { sqlState = String(cString: state) }
            if let primary = PQresultErrorField(result, Int32(UInt8(ascii: "M"))) { message = String(cString: primary) }
        }
        if message.isEmpty, let handle { message = Self.trimmed(PQerrorMessage(handle)) }
        if broken && sqlState == nil {
            return PostgresError(kind: .connectionFailure, sqlState: nil, message: message, sql: sql)
        }
        return PostgresError(sqlState: sqlState, message: message, sql: sql)
    }

    private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
        guard let message else { return "" }
        var text = String(cString: message)
        while text.last?.isWhitespace == true { text.removeLast() }
        return text
    }
}

/// The type OIDs of PostgreSQL's built-in types that results and parameters use.
enum PostgresType {
    static let bool: Oid = 16
    static let bytea: Oid = 17
    static let int8: Oid = 20
    static let int2: Oid = 21
    static let int4: Oid = 23
    static let oid: Oid = 26
    static let float4: Oid = 700
    static let float8: Oid = 701
    static let numeric: Oid = 1700
}

/// The rows a statement returned, in libpq's text format, kept until this is released. Values
/// are read by their column's type: integers and Booleans as integers, floating types as
/// reals, `bytea` as a blob (decoded from its hex text), everything else as text, lent in place.
public final class PostgresResult {
    private let handle: OpaquePointer
    public let rowCount: Int
    public let columnCount: Int
    private let kinds: [ColumnKind]
    /// Decoded `bytea` values lent by `storedColumn`, released with the result.
    private var decodedBlobs: [UnsafeMutableRawBufferPointer] = []

    private enum ColumnKind { case integer, boolean, real, blob, decimal, text }

    init(_ handle: OpaquePointer) {
        self.handle = handle
        rowCount = Int(PQntuples(handle))
        columnCount = Int(PQnfields(handle))
        kinds = (0..<Int32(PQnfields(handle))).map { column in
            switch PQftype(handle, column) {
            case PostgresType.int8, PostgresType.int4, PostgresType.int2, PostgresType.oid: .integer
            case PostgresType.bool: .boolean
            case PostgresType.float4, PostgresType.float8: .real
            case PostgresType.bytea: .blob
            // A column declared NUMERIC(p,s) answers at its scale, as SQLite keeps a decimal
            // written at its property's Scale; a computed or unconstrained NUMERIC (typmod -1)
            // answers without padding zeros, as SQLite's decimal functions do.
            case PostgresType.numeric: PQfmod(handle, column) == -1 ? .decimal : .text
            default: .text
            }
        }
    }

    deinit {
        decodedBlobs.forEach { $0.deallocate() }
        PQclear(handle)
    }

    /// The number of rows an INSERT, UPDATE or DELETE changed.
    public var affectedRowCount: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// The name of a result column.
    public func columnName(_ column: Int) -> String {
        PQfname(handle, Int32(column)).map { String(cString: $0) } ?? ""
    }

    /// A value of the result as the store reads it; text and blobs are valid while this result is.
    public func storedColumn(row: Int, column: Int) -> StoredColumn {
        let r = Int32(row), c = Int32(column)
        if PQgetisnull(handle, r, c) != 0 { return .null }
        guard let start = PQgetvalue(handle, r, c) else { return .null }
        let length = Int(PQgetlength(handle, r, c))
        let bytes = UnsafeRawPointer(start).assumingMemoryBound(to: UInt8.self)
        switch kinds[column] {
        case .integer:
            return Self.integer(UnsafeBufferPointer(start: bytes, count: length)).map(StoredColumn.integer) ?? .null
        case .boolean:
            return .integer(length > 0 && bytes[0] == UInt8(ascii: "t") ? 1 : 0)
        case .real:
            return Double(String(decoding: UnsafeBufferPointer(start: bytes, count: length), as: UTF8.self))
                .map(StoredColumn.real) ?? .null
        case .blob:
            return .blob(UnsafeRawBufferPointer(decodeHex(UnsafeBufferPointer(start: bytes, count: length))))
        case .decimal:
            return .text(UnsafeBufferPointer(start: bytes, count: Self.canonicalDecimalLength(bytes, length)))
        case .text:
            return .text(UnsafeBufferPointer(start: bytes, count: length))
        }
    }

    /// A value of the result, owned.
    public func value(row: Int, column: Int) -> SQLValue {
        storedColumn(row: row, column: column).value
    }

    /// Every row, each as its owned column values.
    public var rows: [[SQLValue]] {
        (0..<rowCount).map { row in (0..<columnCount).map { value(row: row, column: $0) } }
    }

    /// The length of an unconstrained NUMERIC's text without the zeros its computation left
    /// ("10.50" is "10.5", "10.00" is "10"), so that it reads as on SQLite. (NUMERIC's output
    /// has no exponent.)
    private static func canonicalDecimalLength(_ bytes: UnsafePointer<UInt8>, _ length: Int) -> Int {
        guard UnsafeBufferPointer(start: bytes, count: length).contains(UInt8(ascii: ".")) else { return length }
        var end = length
        while end > 0 && bytes[end - 1] == UInt8(ascii: "0") { end -= 1 }
        if end > 0 && bytes[end - 1] == UInt8(ascii: ".") { end -= 1 }
        return end
    }

    private static func integer(_ digits: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        var negative = false
        if let first = digits.first, first == UInt8(ascii: "-") { negative = true; index = 1 }
        var value: Int64 = 0
        while index < digits.count {
            let digit = Int64(digits[index] &- UInt8(ascii: "0"))
            guard digit >= 0 && digit <= 9 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflow1 && !overflow2 else { return nil }
            value = next
            index += 1
        }
        return value
    }

    /// `\x0a1b...` (bytea's hex output) as bytes, owned by this result.
    private func decodeHex(_ text: UnsafeBufferPointer<UInt8>) -> UnsafeMutableRawBufferPointer {
        let digits = text.count >= 2 ? text.count - 2 : 0
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: digits / 2, alignment: 1)
        decodedBlobs.append(buffer)
        func nibble(_ c: UInt8) -> UInt8 {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: c &- UInt8(ascii: "A") &+ 10
            }
        }
        for index in 0..<digits / 2 {
            buffer[index] = nibble(text[2 + 2 * index]) << 4 | nibble(text[3 + 2 * index])
        }
        return buffer
    }
}
