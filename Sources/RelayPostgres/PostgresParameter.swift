import Foundation
import RelayStore

/// A value bound to a `$n` parameter of a statement, sent in PostgreSQL's text format (the statement casts
/// it where the type is not clear from its use).
protocol PostgresParameter {
    /// The value's text as PostgreSQL reads it.
    var postgresText: String { get }
}

extension String: PostgresParameter {
    var postgresText: String { self }
}

extension Int: PostgresParameter {
    var postgresText: String { String(self) }
}

extension Int64: PostgresParameter {
    var postgresText: String { String(self) }
}

extension Bool: PostgresParameter {
    var postgresText: String { self ? "true" : "false" }
}

/// Times are stored as UNIX epoch MILLISECONDS (`bigint`), as in every store.
extension Date: PostgresParameter {
    var postgresText: String { String(EpochMilliseconds.of(self)) }
}

extension UUID: PostgresParameter {
    var postgresText: String { lowercasedString }
}

/// `bytea` in its hex text form (`\x` and two lowercase hex digits a byte).
extension Data: PostgresParameter {
    var postgresText: String { "\\x" + map { String(format: "%02x", $0) }.joined() }
}
