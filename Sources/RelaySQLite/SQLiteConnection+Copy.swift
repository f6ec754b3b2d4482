import Foundation
import RelayStore

/// ``StoreExport`` and ``StoreImport`` on a SQLite connection, shared by ``SQLiteStore`` and the read-only
/// ``SQLiteReader``. Rows move as JSON objects (``StoreTable``) built and read by SQLite's JSON functions.
extension SQLiteConnection {
    /// ``RelayStore/StoreExport/unfinishedCopy()``: the refusal of a store marked by a copy into it.
    func unfinishedCopy() throws -> StoreError? {
        try withStatement(StoreCopy.Mark.readSQL) { try $0.step() ? $0.int64(0) : nil }.map {
            StoreCopy.Mark.refusal(startedAt: $0, fresh: "delete this SQLite file (and its -wal)")
        }
    }

    /// Up to `limit` rows of `table` after the row `after`, in key order.
    func exportBatch(_ table: StoreTable, after: Data?, limit: Int) throws -> StoreBatch {
        let pairs = table.columns.map { "'\($0)', \(Self.exportExpression(table, $0))" }.joined(separator: ", ")
        let key = table.key.map { "t.\($0)" }.joined(separator: ", ")
        let start = table.key.map { "json_extract(?2, '$.\($0)')" }.joined(separator: ", ")
        let sql = """
            SELECT json_object(\(pairs)) FROM \(table.rawValue) AS t
            \(after == nil ? "" : "WHERE (\(key)) > (\(start))") ORDER BY \(key) LIMIT ?1
            """
        let objects = try withStatement(sql) { row in
            try row.bind(1, limit)
            if let after { try row.bind(2, String(decoding: after, as: UTF8.self)) }
            var objects: [String] = []
            while try row.step() { objects.append(row.string(0)) }
            return objects
        }
        return StoreBatch(table: table, objects: objects)
    }

    /// How a column reads into its row object where SQLite keeps it otherwise.
    private static func exportExpression(_ table: StoreTable, _ column: String) -> String {
        if table.arrays.contains(column) { return "json(t.\(column))" }
        if table.booleans.contains(column) { return "json(CASE WHEN t.\(column) THEN 'true' ELSE 'false' END)" }
        return switch (table, column) {
        case (.idempotencyKeys, "request_hash"): "'\\x' || lower(hex(t.request_hash))"
        // A delivery's notification is the one whose run of delivery ids holds it (SQLiteMigrations step 8).
        case (.deliveries, "notification_id"):
            """
            (SELECT n.id FROM notifications AS n WHERE n.first_delivery_id IS NOT NULL
                AND n.first_delivery_id <= t.id AND n.last_delivery_id >= t.id
                ORDER BY n.first_delivery_id DESC LIMIT 1)
            """
        default: "t.\(column)"
        }
    }

    /// Writes the batch's rows in one transaction.
    func importBatch(_ batch: StoreBatch) throws {
        try transaction {
            if batch.table == .idempotencyKeys { return try importIdempotencyKeys(batch) }
            let columns = batch.table.columns.filter { !(batch.table == .deliveries && $0 == "notification_id") }
            let values = columns.map { Self.importExpression(batch.table, $0) }
            let rows = String(decoding: batch.rows, as: UTF8.self)
            try withStatement(
                """
                INSERT INTO \(batch.table.rawValue) (\(columns.joined(separator: ", ")))
                SELECT \(values.joined(separator: ", ")) FROM json_each(?1)
                """
            ) {
                try $0.bind(1, rows)
                try $0.run()
            }
            if batch.table == .deliveries { try checkDeliveryRuns(rows) }
        }
    }

    private static func importExpression(_ table: StoreTable, _ column: String) -> String {
        table.arrays.contains(column) ? "coalesce(json(value -> '$.\(column)'), '[]')" : "value ->> '$.\(column)'"
    }

    /// SQLite finds a delivery's notification by the notification's run of delivery ids: a copied delivery
    /// outside its notification's run (another engine's fan-outs interleaved their ids) would be found under
    /// another notification, so the batch is refused.
    private func checkDeliveryRuns(_ rows: String) throws {
        let strays = try withStatement(
            """
            SELECT count(*) FROM json_each(?1) AS r
            WHERE (SELECT CASE WHEN n.last_delivery_id >= r.value ->> '$.id' THEN n.id END
                FROM notifications AS n
                WHERE n.first_delivery_id IS NOT NULL AND n.first_delivery_id <= r.value ->> '$.id'
                ORDER BY n.first_delivery_id DESC LIMIT 1) IS NOT r.value ->> '$.notification_id'
            """
        ) {
            try $0.bind(1, rows)
            return try $0.step() ? $0.int(0) : 0
        }
        guard strays == 0 else {
            throw StoreError(
                code: .invalidData,
                message: "\(strays) deliveries lie outside their notification's run of delivery ids, "
                    + "which SQLite needs; they cannot be copied into SQLite"
            )
        }
    }

    /// A key's fingerprint is bytes, which SQLite's JSON functions cannot turn back into a blob: these rows
    /// are decoded here and bound one by one.
    private func importIdempotencyKeys(_ batch: StoreBatch) throws {
        for key in try batch.decoded(as: IdempotencyKeyRow.self) {
            try withStatement(
                """
                INSERT INTO idempotency_keys (app_id, scope, key, request_hash, notification_id, created_at)
                VALUES (?1, ?2, ?3, ?4, ?5, ?6)
                """
            ) {
                try $0.bind(1, key.appId)
                try $0.bind(2, key.scope)
                try $0.bind(3, key.key)
                try $0.bind(4, try key.requestHashBytes())
                try $0.bind(5, key.notificationId)
                try $0.bind(6, key.createdAt)
                try $0.run()
            }
        }
    }

    /// Rows in the copied tables.
    func importedRowCount() throws -> Int {
        let counts = StoreTable.allCases.map { "(SELECT count(*) FROM \($0.rawValue))" }
        return Int(try scalar("SELECT " + counts.joined(separator: " + ")))
    }
}

/// An `idempotency_keys` row of a ``StoreBatch`` (columns in snake case, ``StoreBatch/decoded(as:)``).
private struct IdempotencyKeyRow: Decodable {
    var appId, scope, key, requestHash, notificationId: String
    var createdAt: Int64

    /// The fingerprint's bytes from its `\x` hex text.
    func requestHashBytes() throws -> Data {
        let digits = Array(requestHash.utf8.dropFirst(2))
        guard requestHash.hasPrefix("\\x"), digits.count % 2 == 0, digits.allSatisfy(\.isASCIIHexDigit) else {
            throw StoreError(code: .invalidData, message: "request_hash is not \\x and pairs of hex digits")
        }
        return Data(
            stride(from: 0, to: digits.count, by: 2).map { Self.nibble(digits[$0]) << 4 | Self.nibble(digits[$0 + 1]) }
        )
    }

    /// The value of one ASCII hex digit.
    private static func nibble(_ digit: UInt8) -> UInt8 {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        default: digit - 0x41 + 10
        }
    }
}
