import Foundation
import RelayCore
import RelayTestSupport
import Testing

@testable import RelayPostgres
@testable import RelayStore

/// Recounting cached unread totals on PostgreSQL reads the recounted users' rows only. One user's total
/// (every registration recounts it) never reads every row of the app: with the app's 20,000 users analyzed,
/// and before any statistics exist (a new database filling up, as the bench's seed or a first import).
@Suite struct UnreadTotalsPlanTests {
    @Test(arguments: [true, false]) func recountingOneUserReadsOnlyItsRows(analyzed: Bool) async throws {
        let store = try PostgresStore(url: try await PostgresCluster.shared().newDatabaseURL(), logger: .disabled())
        try await store.seedRoomRows(
            20000,
            then: """
                INSERT INTO unread_totals (app_id, user_id, from_ditto, total)
                SELECT 'app-a', 'user-' || i, false, 5 FROM generate_series(1, 20000) AS i;
                """,
            analyzing: analyzed ? ["devices", "room_members", "unread_totals"] : []
        )
        let sql = PostgresStore.unreadSQL
        let user = #"["user-7"]"#
        // Parameters go as text; the statements cast them.
        let statements: [(String, [String])] = [
            (sql.lockTotalsSQL, ["app-a", user]),
            (sql.dropTotalsSQL, ["app-a", user]),
            (sql.refreshTotalsSQL(fromDitto: false), ["app-a", user, "false"]),
        ]
        for (statement, parameters) in statements {
            let rows = try await store.mostRowsOfAPlanNode(statement, parameters)
            #expect(rows <= 10, "\(statement)")
        }
        // The recount replaced user-7's seeded total and no other.
        let totals = try await store.unreadTotals(appId: "app-a", userIds: ["user-7", "user-8"])
        #expect(totals == ["user-7": 0, "user-8": 5])
    }

    /// Recounting many users in a claim (a badge app's first fan-out, before any total is cached) is planned
    /// as outside one: no node handles the users times their totals, as a nested loop joining the two sets
    /// under the claim's plan settings would.
    @Test func recountingAClaimsUsersJoinsNoTwoSetsRowByRow() async throws {
        let store = try PostgresStore(url: try await PostgresCluster.shared().newDatabaseURL(), logger: .disabled())
        try await StoreFixtures.seedRoom("room-1", devices: 2000, in: store)
        let users = try StoredValues.jsonList((1...1000).map { "user-\($0)" })
        let sql = PostgresStore.unreadSQL.refreshTotalsSQL(fromDitto: false)
        let rows = try await store.mostRowsOfAPlanNodeInClaim(of: "app-a", sql, ["app-a", users, "false"])
        #expect(rows <= 2000, "\(rows)")
        #expect(try await store.rowCount("unread_totals") == 1000)
    }
}

extension PostgresStore {
    /// Room room-1 of app-a with `members` users (user-1, user-2, …) of one iOS device each, written by SQL,
    /// then `more` SQL, then ANALYZE of the tables `analyzing` names (none: no statistics, as a new database
    /// just filled has).
    func seedRoomRows(_ members: Int, then more: String = "", analyzing: [String]) throws {
        try execute(
            """
            INSERT INTO devices (app_id, token, user_id, environment, created_at, updated_at)
            SELECT 'app-a', lpad(to_hex(i), 64, '0'), 'user-' || i, 'production', 1800000000000, 1800000000000
            FROM generate_series(1, \(members)) AS i;
            INSERT INTO room_members (app_id, room_id, user_id, joined_at)
            SELECT 'app-a', 'room-1', 'user-' || i, 1800000000000 FROM generate_series(1, \(members)) AS i;
            \(more)
            \(analyzing.map { "ANALYZE \($0);" }.joined(separator: " "))
            """
        )
    }

    /// Runs `sql` under `EXPLAIN ANALYZE` and returns the most rows one node of its plan handled: those it
    /// returned and those its filters removed, over all its loops.
    func mostRowsOfAPlanNode(_ sql: String, _ parameters: [String]) throws -> Int {
        let rows = try db.query("EXPLAIN (ANALYZE, FORMAT JSON) " + sql, parameters.map { $0 })
        let plans = try JSONSerialization.jsonObject(with: Data(rows[0].string(0).utf8)) as? [[String: Any]]
        return try #require(plans?.first?["Plan"] as? [String: Any]).mostRows
    }

    /// ``mostRowsOfAPlanNode(_:_:)`` where a claim of `appId` runs it: inside the claim's transaction, after
    /// its lock (``claimLockSQL``) and its recipients' totals (``claimedTotals(appId:userIds:)``, here of no
    /// one).
    func mostRowsOfAPlanNodeInClaim(of appId: String, _ sql: String, _ parameters: [String]) throws -> Int {
        try inClaim(of: appId) {
            _ = try claimedTotals(appId: appId, userIds: [])
            return try mostRowsOfAPlanNode(sql, parameters)
        }
    }
}

extension [String: Any] {
    /// The most rows this `EXPLAIN (FORMAT JSON)` node or one below it handled
    /// (``PostgresStore/mostRowsOfAPlanNode(_:_:)``).
    fileprivate var mostRows: Int {
        let loops = (self["Actual Loops"] as? NSNumber)?.doubleValue ?? 1
        let perLoop = [
            "Actual Rows", "Rows Removed by Filter", "Rows Removed by Join Filter", "Rows Removed by Index Recheck",
        ]
        .reduce(0.0) { $0 + ((self[$1] as? NSNumber)?.doubleValue ?? 0) }
        let children = (self["Plans"] as? [[String: Any]] ?? []).map(\.mostRows)
        return ([Int(perLoop * loops)] + children).max() ?? 0
    }
}
