import CPostgres
import Foundation
import RelayStore

/// Owns one libpq result (`PGresult *`) of a statement that succeeded, and reads its rows in text format.
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

    func isNull(_ row: Int, _ column: Int) -> Bool { PQgetisnull(raw, Int32(row), Int32(column)) != 0 }

    func string(_ row: Int, _ column: Int) -> String {
        String(cString: PQgetvalue(raw, Int32(row), Int32(column)))
    }

    func optionalString(_ row: Int, _ column: Int) -> String? {
        isNull(row, column) ? nil : string(row, column)
    }

    func int64(_ row: Int, _ column: Int) -> Int64 { Int64(string(row, column)) ?? 0 }

    func optionalInt64(_ row: Int, _ column: Int) -> Int64? { isNull(row, column) ? nil : int64(row, column) }

    func int(_ row: Int, _ column: Int) -> Int { Int(int64(row, column)) }

    func optionalInt(_ row: Int, _ column: Int) -> Int? { optionalInt64(row, column).map(Int.init) }

    /// A `boolean` column (`t` or `f`); false when NULL.
    func bool(_ row: Int, _ column: Int) -> Bool { !isNull(row, column) && string(row, column) == "t" }

    /// A time kept as UNIX epoch MILLISECONDS.
    func date(_ row: Int, _ column: Int) -> Date { EpochMilliseconds.date(int64(row, column)) }

    func optionalDate(_ row: Int, _ column: Int) -> Date? { optionalInt64(row, column).map(EpochMilliseconds.date) }
}
