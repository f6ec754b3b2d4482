import CPostgres
import Foundation
import RelayStore

/// Owns one libpq result (`PGresult *`) of a statement that succeeded, whose rows (``PostgresRow``) read in
/// text format.
/// Not `Sendable`: only the store's thread touches it.
final class PostgresRows {
    private let raw: OpaquePointer

    /// Takes ownership of `raw`; it is cleared when this is released.
    init(_ raw: OpaquePointer) { self.raw = raw }

    deinit { PQclear(raw) }

    /// Rows returned.
    var count: Int { Int(PQntuples(raw)) }

    /// Rows an INSERT, UPDATE or DELETE changed (0 for other statements).
    var changed: Int { Int(String(cString: PQcmdTuples(raw))) ?? 0 }

    /// Whether the value at `row`, `column` is NULL (both from 0); read through ``subscript(index:)``.
    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(raw, Int32(row), Int32(column)) != 0 }

    /// The text of the value at `row`, `column` ("" when NULL); read through ``subscript(index:)``.
    func string(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(raw, Int32(row), Int32(column)))
    }
}
