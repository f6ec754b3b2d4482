import CPostgres
import Foundation
import RelayStore

/// Owns one libpq connection (`PGconn *`). Not `Sendable`: only the store's thread touches it, and every
/// call blocks that thread until the server answers or the statement's deadline passes.
///
/// Every statement is sent with libpq's asynchronous API (PQsendQueryParams, or PQsendQueryPrepared for one
/// prepared in the session, its values bound to `$1`, `$2`, … in text format, never written into the SQL)
/// on a nonblocking connection and waited for in poll(2) (``PostgresResultWait``): a server that stops
/// answering without closing the socket fails the statement after `statementTimeout` instead of hanging the
/// thread, and the connection is given up.
final class PostgresConnection {
    private let raw: OpaquePointer
    /// How long one statement may take, client side, in SECONDS.
    private let statementTimeout: Double
    /// How long statements fail at once after a reconnect failed, in SECONDS, so a queue of calls drains
    /// quickly while the server is down instead of each waiting for a connect timeout.
    private let reconnectPause: Double
    /// Set when a statement's deadline passed (the session is mid-statement) or the server said it ends the
    /// session: it is reopened before the next statement.
    private var abandoned = false
    /// Until when statements fail without trying to reconnect, and libpq's message of the failed attempt.
    private var downUntil: (instant: ContinuousClock.Instant, message: String)?
    /// Set between a transaction's BEGIN and its end: a statement there is never run again, and a lost
    /// connection is not reopened in its midst (what ran of the transaction is gone with the session).
    private var inTransaction = false
    /// Set when the last statement failed because the session ended before answering it (the server
    /// closed it, SQLSTATE 57P01-57P03, or the socket was lost): nothing of that statement ran.
    private var sessionEnded = false
    /// The instance ids whose advisory locks this session holds (``takeInstanceLock(_:)``): a session
    /// opened after a lost connection takes them back before anything else, or closes ``fence``.
    var instanceLocks: [String] = []
    /// This session, once it holds ``instanceLocks``.
    var lockSession: PostgresSession?
    /// The session a storage copy reads its source in (``PostgresStore/refuseLiveRelays()``): the copy fails
    /// when it ends in another (the connection was lost meanwhile).
    var exportSession: PostgresSession?
    /// Sessions that held ``instanceLocks`` and were given up at a statement's deadline, until a new session
    /// takes the locks back: each may hold them still (a statement waiting for a lock notices no closed
    /// socket).
    private var givenUpLockSessions: [PostgresSession] = []
    /// Shared by the connections of one relay: once set, every statement throws its error.
    let fence: InstanceFence
    /// What the connection was made with, for the names its error texts leave out.
    private let parameters: PostgresConnectParameters
    /// The names of the statements this session prepared (``query(prepared:_:)``), by their text; a new
    /// session has none.
    private var prepared: [String: String] = [:]

    /// Connects to `url`, a libpq connection URI or `key=value` string
    /// (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING).
    /// - Parameters:
    ///   - statementTimeout: SECONDS one statement may take before it fails and the connection is given up.
    ///   - connectTimeout: whole SECONDS one connection attempt may take, unless `url` sets `connect_timeout`.
    ///   - reconnectPause: SECONDS during which statements fail at once after a reconnect failed.
    ///   - fence: the relay's ``InstanceFence``, shared by its connections.
    /// - Throws: ``StoreError`` `.open` when the server cannot be reached or refuses the connection; the
    ///   message is libpq's, which never repeats the password.
    init(
        url: String,
        statementTimeout: Double = 10,
        connectTimeout: Int = 5,
        reconnectPause: Double = 1,
        fence: InstanceFence = InstanceFence()
    ) throws {
        let parameters = try PostgresConnectParameters(url: url, connectTimeout: connectTimeout)
        guard let raw = parameters.connect() else {
            throw StoreError(code: .open, message: "PQconnectdbParams: out of memory")
        }
        guard PQstatus(raw) == CONNECTION_OK, PQsetnonblocking(raw, 1) == 0 else {
            let message = parameters.errorMessage(raw)
            PQfinish(raw)
            throw StoreError(code: .open, message: "PQconnectdbParams: \(message)")
        }
        self.raw = raw
        self.parameters = parameters
        self.statementTimeout = statementTimeout
        self.reconnectPause = reconnectPause
        self.fence = fence
        try startSession()
    }

    deinit { PQfinish(raw) }

    /// The database and host connected to (no user or password), for logs.
    var location: String {
        let database = PQdb(raw).map { String(cString: $0) } ?? "?"
        let host = PQhost(raw).map { String(cString: $0) } ?? "?"
        return "\(database) on \(host)"
    }

    /// Runs one or more statements without parameters (schema steps, BEGIN, COMMIT).
    /// - Throws: ``StoreError`` with the code of the server's SQLSTATE.
    func execute(_ sql: String) throws {
        _ = try run { try sendAndWait(call: "PQsendQuery") { PQsendQuery($0, sql) } }
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, … (nil binds NULL) and returns its rows.
    /// - Throws: ``StoreError`` with the code of the server's SQLSTATE.
    @discardableResult
    func query(_ sql: String, _ parameters: (any PostgresParameter)?...) throws -> PostgresRows {
        try query(sql, parameters)
    }

    /// ``query(_:_:)`` with the parameters in an array.
    /// - Throws: ``StoreError`` `.invalidData` when a value holds a NUL character, which PostgreSQL's text
    ///   cannot store (sent as a C string it would be cut short there).
    @discardableResult
    func query(_ sql: String, _ parameters: [(any PostgresParameter)?]) throws -> PostgresRows {
        try withTexts(of: parameters) { values in
            try run {
                try sendAndWait(call: "PQsendQueryParams") {
                    PQsendQueryParams($0, sql, Int32(values.count), nil, values.baseAddress, nil, nil, 0)
                }
            }
        }
    }

    /// ``query(_:_:)`` for a statement whose text is fixed in code, run often, whose best plan does not depend
    /// on its values (ids, or lists passed as one JSON value the planner cannot look into): prepared once a
    /// session and run by name, so the server parses it once and, from its sixth run on, plans it once (a
    /// generic plan, which PostgreSQL keeps only while it costs no more than the plans made for the values).
    @discardableResult
    func query(prepared sql: String, _ parameters: (any PostgresParameter)?...) throws -> PostgresRows {
        try withTexts(of: parameters) { values in
            try run {
                let name = try preparedName(sql, parameters: values.count)
                return try sendAndWait(call: "PQsendQueryPrepared") {
                    PQsendQueryPrepared($0, name, Int32(values.count), values.baseAddress, nil, nil, 0)
                }
            }
        }
    }

    /// The name `sql` is prepared under in this session, preparing it first when it is not.
    private func preparedName(_ sql: String, parameters: Int) throws -> String {
        if let name = prepared[sql] { return name }
        let name = "relay_\(prepared.count + 1)"
        _ = try sendAndWait(call: "PQsendPrepare") { PQsendPrepare($0, name, sql, Int32(parameters), nil) }
        prepared[sql] = name
        return name
    }

    /// Calls `body` with `parameters` as C strings (NULL for nil) in text format.
    /// - Throws: ``StoreError`` `.invalidData` when a value holds a NUL character.
    private func withTexts<T>(
        of parameters: [(any PostgresParameter)?],
        _ body: (UnsafeBufferPointer<UnsafePointer<CChar>?>) throws -> T
    ) throws -> T {
        let values = parameters.map { $0?.postgresText }
        if let index = values.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw StoreError(code: .invalidData, message: "parameter $\(index + 1) holds a NUL character")
        }
        let texts = values.map { $0.map { strdup($0) } ?? nil }
        defer { texts.forEach { free($0) } }
        return try texts.map { UnsafePointer($0) }.withUnsafeBufferPointer(body)
    }

    /// Runs `body` in a transaction begun by `begin`: commits if it returns, rolls back if it throws. A
    /// connection given up or lost meanwhile ends the transaction with it: no ROLLBACK is tried there. A
    /// failure before the COMMIT is sent committed nothing (``RelayStore/StoreError/committedNothing``); one
    /// of the COMMIT itself may have committed.
    func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        do { try execute(begin) } catch { throw StoreError.committingNothing(error) }
        inTransaction = true
        defer { inTransaction = false }
        let result: T
        do { result = try body() } catch {
            rollBack()
            throw StoreError.committingNothing(error)
        }
        do { try execute("COMMIT") } catch {
            rollBack()
            throw error
        }
        return result
    }

    /// Ends the transaction that failed, unless its connection was given up or lost.
    private func rollBack() {
        let state = PQtransactionStatus(raw)
        if !abandoned, state == PQTRANS_INTRANS || state == PQTRANS_INERROR { _ = try? execute("ROLLBACK") }
    }

    /// ``transaction(begin:_:)``, run again when the server rolls it back for meeting a concurrent one
    /// (``StoreError/Code/conflict``: SQLSTATE 40P01 deadlock, 40001 serialization failure), up to
    /// `attempts` times in all, after a pause of 5 to 25 ms times the attempt (random, so two transactions
    /// that met do not meet again in step). For transactions that lock rows in an order their input decides
    /// (two relays applying one document stream); `body` must be safe to run again.
    /// - Throws: the last attempt's error, or the first error that is not a conflict.
    func retryingTransaction<T>(attempts: Int = 10, _ body: () throws -> T) throws -> T {
        var attempt = 1
        while true {
            do {
                return try transaction(body)
            } catch let error as StoreError where error.code == .conflict && attempt < attempts {
                usleep(UInt32(Int.random(in: 5_000...25_000) * attempt))
                attempt += 1
            }
        }
    }

    /// Runs one statement by `attempt` (``sendAndWait(call:send:)``s). A statement outside a transaction
    /// (BEGIN, or one on its own) whose session ended before answering it (a server restart ends idle
    /// sessions) is tried once more on a new session: nothing of it ran. A statement inside a transaction
    /// never is.
    /// - Throws: ``StoreError`` `.io` when the connection is lost or given up, or the server does not
    ///   answer in time; `.instanceInUse` once ``fence`` is closed; otherwise the code of the server's SQLSTATE.
    private func run(_ attempt: () throws -> PostgresRows) throws -> PostgresRows {
        try reconnectIfLost()
        let retryable = !inTransaction
        do {
            return try attempt()
        } catch {
            guard retryable, sessionEnded else { throw error }
            try reconnectIfLost()
            return try attempt()
        }
    }

    /// Sends one statement with `send`, waits for its results until the statement's deadline, and checks them.
    private func sendAndWait(call: String, send: (OpaquePointer) -> Int32) throws -> PostgresRows {
        sessionEnded = false
        guard send(raw) == 1 else { return try check(nil, call: call) }
        switch PostgresResultWait.lastResult(raw, deadline: .now + .seconds(statementTimeout)) {
        case .finished(let result):
            return try check(result, call: call)
        case .timedOut:
            // PQcancel would block on a frozen server too: the session is dropped instead. Its socket is
            // shut at once, so the server ends the session when it next reads (one idle in a transaction
            // would hold its locks until the reconnect otherwise); PQreset closes it later.
            abandoned = true
            if let lockSession { givenUpLockSessions.append(lockSession) }
            lockSession = nil
            shutdown(PQsocket(raw), Int32(SHUT_RDWR))
            throw StoreError(code: .io, message: "PostgreSQL did not answer within \(Self.seconds(statementTimeout))")
        }
    }

    /// A connection the server closed (restart, failover, idle timeout) or one given up after a deadline is
    /// opened again, and its session set up (``instanceLocks`` taken back), before the next statement. An
    /// idle connection is checked for the server's goodbye (its socket readable) without sending anything.
    /// While a reconnect failed less than `reconnectPause` ago, statements fail at once. A connection lost
    /// inside a transaction is not reopened there: the transaction is lost.
    /// - Throws: ``StoreError`` `.io` when the server cannot be reached (``RelayStore/StoreError/committedNothing``:
    ///   the statement was not sent, and a transaction lost is not committed); `.instanceInUse` once ``fence``
    ///   is closed, or when this call closes it (another process holds an instance lock now).
    func reconnectIfLost() throws {
        if let fenced = fence.current { throw fenced }
        guard abandoned || PQstatus(raw) == CONNECTION_BAD || closedWhileIdle() else { return }
        if inTransaction {
            throw StoreError(
                code: .io,
                message: "the connection to PostgreSQL was lost in a transaction",
                committedNothing: true
            )
        }
        if let downUntil, ContinuousClock.now < downUntil.instant {
            throw StoreError(
                code: .io,
                message: "PostgreSQL is unreachable: \(downUntil.message)",
                committedNothing: true
            )
        }
        PQreset(raw)
        guard PQstatus(raw) == CONNECTION_OK, PQsetnonblocking(raw, 1) == 0 else {
            let message = parameters.errorMessage(raw)
            downUntil = (.now + .seconds(reconnectPause), message)
            throw StoreError(code: .io, message: "PQreset: \(message)", committedNothing: true)
        }
        abandoned = false
        downUntil = nil
        do { try startSession() } catch {
            // A session whose set-up failed (its locks not all taken back) runs nothing: the next statement
            // opens another, after the pause.
            abandoned = true
            downUntil = (.now + .seconds(reconnectPause), "\(error)")
            throw error
        }
    }

    /// True when an idle connection's socket is readable and reading it finds the connection closed: a
    /// server that ends a session (restart, `pg_terminate_backend`) sends its reason and closes the socket.
    /// Reads without parsing, so nothing is printed or lost (the connection runs no LISTEN).
    private func closedWhileIdle() -> Bool {
        guard !inTransaction, PQtransactionStatus(raw) == PQTRANS_IDLE else { return false }
        var descriptor = pollfd(fd: PQsocket(raw), events: Int16(POLLIN), revents: 0)
        guard poll(&descriptor, 1, 0) > 0 else { return false }
        return PQconsumeInput(raw) == 0 || PQstatus(raw) == CONNECTION_BAD
    }

    /// Sets up a new session, which has no prepared statements: libpq prints notices ("relation already
    /// exists, skipping") on standard error, so only warnings up; no JIT compilation (the store's statements
    /// are index lookups and range writes: compiling a fan-out's insert took longer than running it); READ
    /// COMMITTED whatever the server's or database's default, as the store's transactions that wait for an
    /// advisory lock and then read what the lock's last holder committed need (under REPEATABLE READ the
    /// snapshot is taken while waiting); the server's own statement timeout a second past the relay's, so a
    /// statement the relay gave up (waiting for a lock, say) ends on the server too instead of holding its
    /// locks and work until it finishes; a session idle inside a transaction for half the relay's statement
    /// timeout (a second at least) ended by the server, so a relay frozen within a transaction (a stopped process, a paused
    /// host) does not hold its rows and an app's claim lock, and with them every other relay's sends, until
    /// it runs again (the relay's transactions run their statements back to back; the frozen one's next
    /// statement fails, and it connects again); then the ``instanceLocks`` are taken back, each of them or
    /// the fence.
    /// - Throws: ``StoreError`` `.instanceInUse` (the fence closed) when another process holds one.
    private func startSession() throws {
        prepared = [:]
        lockSession = nil
        try execute("SET client_min_messages = warning")
        try execute("SET jit = off")
        try execute("SET default_transaction_isolation = 'read committed'")
        try execute("SET statement_timeout = \(Int((statementTimeout + 1) * 1000))")
        try execute("SET idle_in_transaction_session_timeout = \(max(1000, Int(statementTimeout * 500)))")
        for id in instanceLocks {
            for session in givenUpLockSessions { endGivenUpSession(session, holding: id) }
            guard try takeInstanceLock(id) else { throw fence.close(instanceId: id) }
        }
        givenUpLockSessions = []
    }

    /// The server process of the session (`PQbackendPID`).
    var backendPID: Int32 { PQbackendPID(raw) }

    /// `value` SECONDS for a message: "10 s", "0.5 s".
    private static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }

    /// The rows of a successful `result`, or the server's error as a ``StoreError``.
    private func check(_ result: OpaquePointer?, call: String) throws -> PostgresRows {
        guard let result else {
            sessionEnded = PQstatus(raw) == CONNECTION_BAD
            throw StoreError(code: .io, message: "\(call): \(Self.trimmed(PQerrorMessage(raw)))")
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            // The primary message only: DETAIL lines repeat key values, which can be device tokens.
            let message = Self.field(result, "M") ?? Self.trimmed(PQerrorMessage(raw))
            let state = Self.field(result, "C") ?? ""
            PQclear(result)
            // A lost connection carries no SQLSTATE of the server's, or the one of its ending (57P0x).
            let lost = PQstatus(raw) == CONNECTION_BAD
            let ending = Self.sessionEndStates.contains(state)
            if ending { abandoned = true }
            sessionEnded = ending || (lost && (state.isEmpty || state.hasPrefix("08")))
            let code: StoreError.Code = lost || ending ? .io : Self.code(sqlState: state)
            throw StoreError(code: code, message: "\(call): \(message) (SQLSTATE \(state))")
        }
        return PostgresRows(result)
    }

    /// The SQLSTATEs of a session the server ended: 57P01 admin shutdown, 57P02 crash shutdown, 57P03
    /// cannot connect now.
    private static let sessionEndStates: Set<String> = ["57P01", "57P02", "57P03"]

    /// A field of an error result (`PQresultErrorField`): "C" the SQLSTATE, "M" the primary message.
    private static func field(_ result: OpaquePointer, _ code: Character) -> String? {
        PQresultErrorField(result, Int32(code.asciiValue ?? 0)).map { String(cString: $0) }
    }

    private static func trimmed(_ text: UnsafePointer<CChar>?) -> String {
        text.map { String(cString: $0).trimmingCharacters(in: .whitespacesAndNewlines) } ?? "unknown error"
    }

    /// The ``StoreError/Code`` of a SQLSTATE (https://www.postgresql.org/docs/current/errcodes-appendix.html).
    static func code(sqlState: String) -> StoreError.Code {
        switch sqlState {
        case "25006": return .readOnly
        case "40001", "40P01": return .conflict
        case "55P03", "57014": return .busy
        case "XX001", "XX002": return .corrupt
        default: break
        }
        switch sqlState.prefix(2) {
        // A value the server cannot keep (a data exception). Not class 54: its 54000 is also the whole
        // database refusing writes (transaction ids near wraparound), which must pause, never skip.
        case "22": return .invalidData
        case "23": return .constraint
        case "08", "53", "58": return .io
        case "28", "3D": return .open
        default: return .other
        }
    }
}
