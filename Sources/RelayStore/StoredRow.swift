import Foundation
import RelayCore

/// One row of a statement's result, read by column position (from 0): what every engine's row gives, so
/// that each stored model is decoded from a row in one place whatever the engine.
///
/// Engines keep times as UNIX epoch MILLISECONDS (``EpochMilliseconds``) and booleans as the engine's own
/// (SQLite integers 0 and 1, PostgreSQL `boolean`); a conformance reads them back as Swift values. A row
/// whose engine always has a value of the asked type (SQLite converts) reads with `Failure` `Never`.
package protocol StoredRow {
    /// What a read of a bad value throws: ``StoreError`` (`.invalidData`), or `Never`.
    associatedtype Failure: Error

    /// Whether the column is NULL.
    func isNull(_ column: Int) -> Bool

    /// The column's text ("" when NULL).
    func string(_ column: Int) -> String

    /// The column as a 64-bit integer (0 when NULL).
    /// - Throws: ``StoreError`` `.invalidData` when it holds no integer.
    func int64(_ column: Int) throws(Failure) -> Int64

    /// A boolean column; false when NULL.
    /// - Throws: ``StoreError`` `.invalidData` when it holds no boolean.
    func bool(_ column: Int) throws(Failure) -> Bool
}

extension StoredRow {
    /// The column's text; nil when NULL.
    package func optionalString(_ column: Int) -> String? { isNull(column) ? nil : string(column) }

    /// The column as a 64-bit integer; nil when NULL.
    package func optionalInt64(_ column: Int) throws(Failure) -> Int64? { isNull(column) ? nil : try int64(column) }

    /// The column as an integer.
    package func int(_ column: Int) throws(Failure) -> Int { Int(try int64(column)) }

    /// The column as an integer; nil when NULL.
    package func optionalInt(_ column: Int) throws(Failure) -> Int? { try optionalInt64(column).map(Int.init) }

    /// A time kept as UNIX epoch MILLISECONDS.
    package func date(_ column: Int) throws(Failure) -> Date { EpochMilliseconds.date(try int64(column)) }

    /// A time kept as UNIX epoch MILLISECONDS; nil when NULL.
    package func optionalDate(_ column: Int) throws(Failure) -> Date? {
        try optionalInt64(column).map(EpochMilliseconds.date)
    }

    /// A UUID kept as canonical text.
    /// - Throws: ``StoreError`` `.invalidData` when it is not one.
    package func uuid(_ column: Int) throws -> UUID { try StoredValues.uuid(string(column)) }

    /// A stored token from its text, platform and address columns and, on a device's row, its scope and
    /// unlinked identities columns (``StoredValues/token(_:platform:address:scope:unlinked:)``).
    /// - Throws: ``StoreError`` `.invalidData` when they make no valid token.
    package func token(
        _ column: Int,
        platform: Int,
        address: Int,
        scope: Int? = nil,
        unlinked: Int? = nil
    ) throws -> PushToken {
        try StoredValues.token(
            string(column),
            platform: string(platform),
            address: optionalString(address),
            scope: scope.map { string($0) },
            unlinked: unlinked.map { string($0) }
        )
    }
}
