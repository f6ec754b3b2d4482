import CPostgres
import Foundation
import RelayStore

/// Owns one libpq connection (`PGconn *`). Not `Sendable`: only the store's thread touches it, and every
/// call blocks that thread until the server answers.
///
/// Every statement is sent with PQexecParams, its values bound to `$1`, `$2`, … in text format, never
/// written into the SQL.
final class PostgresConnection {
    private let raw: OpaquePointer
    /// Statements with one parameter, run again on the new session after a lost connection is reopened
    /// (the instance's advisory lock ends with the session that took it); their answers are not checked.
    var sessionStatements: [(sql: String, parameter: String)] = []

    /// Connects to `url`, a libpq connection URI or `key=value` string
    /// (https://www.postgresql.org/docs/current/libpq-connect.html#LIBPQ-CONNSTRING).
    /// - Throws: ``StoreError`` `.open` when the server cannot be reached or refuses the connection; the
    ///   message is libpq's, which never repeats the password.
    init(url: String) throws {
        guard let raw = PQconnectdb(url) else {
            throw StoreError(code: .open, message: "PQconnectdb: out of memory")
        }
        guard PQstatus(raw) == CONNECTION_OK else {
            let message = Self.trimmed(PQerrorMessage(raw))
            PQfinish(raw)
            throw StoreError(code: .open, message: "PQconnectdb: \(message)")
        }
        self.raw = raw
        // libpq prints notices ("relation already exists, skipping") on standard error: only warnings up.
        try execute("SET client_min_messages = warning")
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
        reconnectIfLost()
        _ = try check(PQexec(raw, sql), call: "PQexec")
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
        let values = parameters.map { $0?.postgresText }
        if let index = values.firstIndex(where: { $0?.utf8.contains(0) == true }) {
            throw StoreError(code: .invalidData, message: "parameter $\(index + 1) holds a NUL character")
        }
        reconnectIfLost()
        let texts = values.map { $0.map { strdup($0) } ?? nil }
        defer { texts.forEach { free($0) } }
        let pointers = texts.map { UnsafePointer($0) }
        let result = pointers.withUnsafeBufferPointer { buffer in
            PQexecParams(raw, sql, Int32(buffer.count), nil, buffer.baseAddress, nil, nil, 0)
        }
        return try check(result, call: "PQexecParams")
    }

    /// Runs `body` in a transaction begun by `begin`: commits if it returns, rolls back if it throws.
    func transaction<T>(begin: String = "BEGIN", _ body: () throws -> T) throws -> T {
        try execute(begin)
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            if PQtransactionStatus(raw) != PQTRANS_IDLE { PQclear(PQexec(raw, "ROLLBACK")) }
            throw error
        }
    }

    /// A connection the server closed (restart, failover, idle timeout) is opened again before the next
    /// statement; a transaction it was in is lost, and that statement fails.
    private func reconnectIfLost() {
        guard PQstatus(raw) == CONNECTION_BAD else { return }
        PQreset(raw)
        guard PQstatus(raw) == CONNECTION_OK else { return }
        for statement in sessionStatements { _ = try? query(statement.sql, statement.parameter) }
    }

    /// The rows of a successful `result`, or the server's error as a ``StoreError``.
    private func check(_ result: OpaquePointer?, call: String) throws -> PostgresRows {
        guard let result else {
            throw StoreError(code: .io, message: "\(call): \(Self.trimmed(PQerrorMessage(raw)))")
        }
        let status = PQresultStatus(result)
        guard status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_EMPTY_QUERY else {
            // The primary message only: DETAIL lines repeat key values, which can be device tokens.
            let message = Self.field(result, "M") ?? Self.trimmed(PQerrorMessage(raw))
            let state = Self.field(result, "C") ?? ""
            PQclear(result)
            // A lost connection carries no SQLSTATE of the server's, or the one of its ending (57P0x).
            let code: StoreError.Code = PQstatus(raw) == CONNECTION_BAD ? .io : Self.code(sqlState: state)
            throw StoreError(code: code, message: "\(call): \(message) (SQLSTATE \(state))")
        }
        return PostgresRows(result)
    }

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
        case "40001", "40P01", "55P03", "57014": return .busy
        case "XX001", "XX002": return .corrupt
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return .constraint
        case "08", "53", "58": return .io
        case "28", "3D": return .open
        default: return .other
        }
    }
}
