import CPostgres
import Foundation
import RelayStore

/// The keyword/value parameters of a libpq connection string, parsed by libpq (PQconninfoParse), with a
/// client-side `connect_timeout` added when the string sets none, so connecting to a server that accepts
/// the socket and never answers (a frozen host) ends (https://www.postgresql.org/docs/current/libpq-connect.html),
/// and ``applicationName`` as `fallback_application_name` when it sets none, so `pg_stat_activity` tells the
/// relay's sessions from others' unless `application_name` (or `PGAPPNAME`) names them.
struct PostgresConnectParameters {
    private var keywords: [String] = []
    private var values: [String] = []

    /// The parameters of `url` (a URI or `key=value` string); `connectTimeout` in whole SECONDS (libpq
    /// treats values below 2 as 2) when `url` sets no `connect_timeout`.
    /// - Throws: ``StoreError`` `.open` when libpq cannot parse `url`.
    init(url: String, connectTimeout: Int) throws {
        let options: UnsafeMutablePointer<PQconninfoOption>
        switch PostgresConnectionString.parse(url) {
        case .success(let parsed): options = parsed
        case .failure(let problem): throw StoreError(code: .open, message: "PQconninfoParse: \(problem.message)")
        }
        defer { PQconninfoFree(options) }
        var option = options
        while let keyword = option.pointee.keyword {
            if let value = option.pointee.val {
                keywords.append(String(cString: keyword))
                values.append(String(cString: value))
            }
            option += 1
        }
        if !keywords.contains("connect_timeout") {
            keywords.append("connect_timeout")
            values.append(String(connectTimeout))
        }
        if !keywords.contains("fallback_application_name") {
            keywords.append("fallback_application_name")
            values.append(Self.applicationName)
        }
    }

    /// The sessions' `application_name` unless the connection string (`?application_name=relay-a` names each
    /// relay's own) or `PGAPPNAME` sets one.
    static let applicationName = "push-relay"

    /// libpq's error text of `connection`, trimmed, with every quoted name taken from these parameters (a host,
    /// a socket's path in a socket directory given, a database, a user) as `<redacted>`
    /// (``PostgresConnectionString/scrubbed(_:source:values:)``): what a log line or an error may show of a
    /// failed connection.
    func errorMessage(_ connection: OpaquePointer?) -> String {
        let text = PQerrorMessage(connection).map { String(cString: $0) } ?? "unknown error"
        return PostgresConnectionString.scrubbed(text, source: values.joined(separator: " "), values: values)
    }

    /// The value given for `keyword`, nil when none is.
    func value(of keyword: String) -> String? { keywords.firstIndex(of: keyword).map { values[$0] } }

    /// Connects with PQconnectdbParams (blocking, bounded by `connect_timeout` per host tried). The
    /// dbname is not expanded again: PQconninfoParse has taken the string apart already. PQreset of the
    /// connection reuses these parameters. Nil only when libpq is out of memory; check PQstatus.
    ///
    /// libpq prints notices to stderr by default: a server's warning, or the FATAL of a session the server
    /// ends while it is idle (`terminating connection due to administrator command`). The relay's log is JSON
    /// lines, and a lost session shows at its next statement, so every connection drops them.
    func connect() -> OpaquePointer? {
        let keywordTexts = keywords.map { strdup($0) }
        let valueTexts = values.map { strdup($0) }
        defer { (keywordTexts + valueTexts).forEach { free($0) } }
        let keywordPointers = keywordTexts.map { UnsafePointer($0) } + [nil]
        let valuePointers = valueTexts.map { UnsafePointer($0) } + [nil]
        let connection = PQconnectdbParams(keywordPointers, valuePointers, 0)
        if let connection { PQsetNoticeProcessor(connection, { _, _ in }, nil) }
        return connection
    }
}
