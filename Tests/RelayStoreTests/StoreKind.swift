import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelaySQLite
@testable import RelayStore

/// The engines the conformance tests run on: each `@Test(arguments: StoreKind.allCases)` runs once on a new
/// SQLite file and once on a new schema of the test process's PostgreSQL cluster.
enum StoreKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// Seconds a statement may take in the scale tests: a 100,000-row statement on a machine busy with the
    /// whole test run can outlast the store's default, and those tests are about the statements' shape.
    static let largeStatementSeconds: Double = 300

    /// A store on a new, empty database; `statementTimeout` (seconds, PostgreSQL) is the store's default
    /// unless a test's statements are large enough to outlast it on a loaded machine.
    func makeStore(
        timeSource: any TimeSource = SystemTimeSource(),
        statementTimeout: Double = 10
    ) async throws -> any Store {
        try await makeDatabase().open(timeSource: timeSource, statementTimeout: statementTimeout)
    }

    /// A new, empty database, which several stores (as several relays) can open.
    func makeDatabase() async throws -> TestDatabase {
        switch self {
        case .sqlite:
            let directory = FileManager.default.temporaryDirectory
                .appendingPathComponent("relay-store-\(UUID().uuidString)")
            return TestDatabase(kind: self, location: directory.appendingPathComponent("relay.sqlite").path)
        case .postgres:
            return TestDatabase(kind: self, location: try await PostgresCluster.shared().newDatabaseURL())
        }
    }
}

/// One database of a test: a SQLite file (deleted with this) or a PostgreSQL schema (dropped with the
/// cluster); each ``open(timeSource:)`` is a new store with a connection of its own.
final class TestDatabase: Sendable {
    let kind: StoreKind
    /// The file's path, or the connection URI.
    let location: String

    init(kind: StoreKind, location: String) {
        self.kind = kind
        self.location = location
    }

    deinit {
        if kind == .sqlite {
            try? FileManager.default.removeItem(atPath: (location as NSString).deletingLastPathComponent)
        }
    }

    func open(timeSource: any TimeSource = SystemTimeSource(), statementTimeout: Double = 10) throws -> any Store {
        switch kind {
        case .sqlite: try SQLiteStore(path: location, logger: .disabled(), timeSource: timeSource)
        case .postgres:
            try PostgresStore(
                url: location,
                logger: .disabled(),
                timeSource: timeSource,
                statementTimeout: statementTimeout
            )
        }
    }
}

extension StoreFixtures {
    /// Rows in `table` of `store`'s database (the tables the two schemas share by name).
    static func count(_ table: String, in store: any Store) async throws -> Int {
        switch store {
        case let sqlite as SQLiteStore:
            return Int(try await sqlite.withConnection { try $0.scalar("SELECT count(*) FROM \(table)") })
        case let postgres as PostgresStore:
            return try await postgres.rowCount(table)
        default:
            preconditionFailure("no row count for \(type(of: store))")
        }
    }

    /// The ids of `rows` (a table and its condition, from the tests) of `store`'s database, in id order.
    static func ids(of rows: String, in store: any Store) async throws -> [Int64] {
        let sql = "SELECT id FROM \(rows) ORDER BY id"
        switch store {
        case let sqlite as SQLiteStore:
            return try await sqlite.withConnection { db in
                try db.withStatement(sql) { row in
                    var ids: [Int64] = []
                    while try row.step() { ids.append(row.int64(0)) }
                    return ids
                }
            }
        case let postgres as PostgresStore:
            return try await postgres.ids(sql)
        default:
            preconditionFailure("no rows for \(type(of: store))")
        }
    }

    /// Makes the feedback table refuse every insert (a trigger that raises), or drops that trigger.
    static func refuseFeedbackRows(in store: any Store, _ refuse: Bool) async throws {
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.execute(
                refuse
                    ? "CREATE TRIGGER refuse BEFORE INSERT ON feedback BEGIN SELECT RAISE(ABORT, 'refused'); END"
                    : "DROP TRIGGER refuse"
            )
        case let postgres as PostgresStore:
            try await postgres.execute(
                refuse
                    ? """
                    CREATE FUNCTION refuse() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RAISE EXCEPTION ''refused''; END';
                    CREATE TRIGGER refuse BEFORE INSERT ON feedback FOR EACH ROW EXECUTE FUNCTION refuse();
                    """
                    : "DROP TRIGGER refuse ON feedback; DROP FUNCTION refuse()"
            )
        default:
            preconditionFailure("no trigger for \(type(of: store))")
        }
    }

    /// Registers `count` production devices of users `user-1`… in app-a, each user a member of `room`,
    /// in one statement per table.
    static func seedRoom(_ room: String, devices count: Int, in store: any Store) async throws {
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                SELECT 'app-a', printf('%064x', i), 'user-' || i, 'production', 1800000000000, 1800000000000 FROM n;
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
                INSERT INTO room_members (app_id, room_id, user_id, joined_at)
                SELECT 'app-a', '\(room)', 'user-' || i, 1800000000000 FROM n;
                """
            )
        case let postgres as PostgresStore:
            try await postgres.execute(
                """
                INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
                SELECT 'app-a', lpad(to_hex(i), 64, '0'), 'user-' || i, 'production', 1800000000000, 1800000000000
                FROM generate_series(1, \(count)) AS i;
                INSERT INTO room_members (app_id, room_id, user_id, joined_at)
                SELECT 'app-a', '\(room)', 'user-' || i, 1800000000000 FROM generate_series(1, \(count)) AS i;
                ANALYZE devices; ANALYZE room_members;
                """
            )
        default:
            preconditionFailure("no seeding for \(type(of: store))")
        }
    }

    /// Gives the members `user-N` of `room` (``seedRoom(_:devices:in:)``) levels: `none` for the room when N
    /// ends in 0, `mentions` by default when it ends in 1; one statement per table.
    static func seedLevels(room: String, in store: any Store) async throws {
        switch store {
        case let sqlite as SQLiteStore:
            try await sqlite.execute(
                """
                INSERT INTO room_levels (app_id, room_id, user_id, level)
                SELECT app_id, room_id, user_id, 'none' FROM room_members
                WHERE app_id = 'app-a' AND room_id = '\(room)' AND CAST(substr(user_id, 6) AS INTEGER) % 10 = 0;
                INSERT INTO user_settings (app_id, user_id, notify)
                SELECT app_id, user_id, 'mentions' FROM room_members
                WHERE app_id = 'app-a' AND room_id = '\(room)' AND CAST(substr(user_id, 6) AS INTEGER) % 10 = 1;
                """
            )
        case let postgres as PostgresStore:
            try await postgres.execute(
                """
                INSERT INTO room_levels (app_id, room_id, user_id, level)
                SELECT app_id, room_id, user_id, 'none' FROM room_members
                WHERE app_id = 'app-a' AND room_id = '\(room)' AND substr(user_id, 6)::int % 10 = 0;
                INSERT INTO user_settings (app_id, user_id, notify)
                SELECT app_id, user_id, 'mentions' FROM room_members
                WHERE app_id = 'app-a' AND room_id = '\(room)' AND substr(user_id, 6)::int % 10 = 1;
                ANALYZE room_levels; ANALYZE user_settings;
                """
            )
        default:
            preconditionFailure("no seeding for \(type(of: store))")
        }
    }

    /// How many forgotten idempotency keys the store deletes per keyed notification.
    static func forgottenKeysPerInsert(_ kind: StoreKind) -> Int {
        switch kind {
        case .sqlite: SQLiteStore.forgottenKeysPerInsert
        case .postgres: PostgresStore.forgottenKeysPerInsert
        }
    }
}

extension PostgresStore {
    /// Rows in `table` (a name from the tests, never input).
    func rowCount(_ table: String) throws -> Int {
        try db.query("SELECT count(*) FROM \(table)")[0].int(0)
    }

    /// Runs raw SQL on the store's connection (tests).
    func execute(_ sql: String) throws {
        try db.execute(sql)
    }

    /// The first column of `sql`'s rows as ids (a query from the tests).
    func ids(_ sql: String) throws -> [Int64] {
        try db.query(sql).all.map { try $0.int64(0) }
    }
}

extension PostgresMigrations {
    /// A connection to the empty database at `url` after the first `version` schema steps, as a build that
    /// knew only those left it.
    static func database(at url: String, version: Int) throws -> PostgresConnection {
        let db = try PostgresConnection(url: url, statementTimeout: 10)
        try db.execute("CREATE TABLE relay_schema_version (version integer NOT NULL)")
        for sql in steps.prefix(version) { try db.execute(sql) }
        try db.query("INSERT INTO relay_schema_version (version) VALUES ($1)", version)
        return db
    }
}
