import Foundation
import RelayCore
import Testing

@testable import RelaySQLite
@testable import RelayStore

@Suite struct ScaleTests {
    typealias F = StoreFixtures

    /// 100,000 devices in one room: one INSERT … SELECT creates 100,000 deliveries. Prints the time taken and
    /// the process's resident memory (no assertion on either).
    @Test(arguments: StoreKind.allCases) func aHundredThousandDeviceRoom(kind: StoreKind) async throws {
        let store = try await kind.makeStore(statementTimeout: StoreKind.largeStatementSeconds)
        let count = 100_000
        try await F.seedRoom("big", devices: count, in: store)
        let before = Self.residentKilobytes()
        let clock = ContinuousClock()
        var outcome: CreateOutcome?
        let elapsed = try await clock.measure {
            outcome = try await store.createNotification(
                F.notification(room: "big", sender: "user-1"),
                recipients: .init(roomId: "big", excludeUserId: "user-1")
            )
        }
        let after = Self.residentKilobytes()
        #expect(outcome?.devices == count - 1)
        #expect(try await store.pendingDeliveryCount() == count - 1)
        let jobs = try await store.claimDueDeliveries(now: F.t0, limit: 1000, leaseSeconds: 30, owner: F.owner)
        #expect(jobs.count == 1000)
        print(
            "[ScaleTests] \(kind): createNotification for \(count - 1) devices took \(elapsed); RSS \(before) kB -> \(after) kB"
        )
    }

    /// 100,000 members by their levels, in the one statement: a tenth at `none` for the room, a tenth at
    /// `mentions` by default, of whom the message mentions two (and one member at `none`, who stays out).
    @Test(arguments: StoreKind.allCases) func aHundredThousandMemberRoomGoesByLevels(kind: StoreKind) async throws {
        let store = try await kind.makeStore(statementTimeout: StoreKind.largeStatementSeconds)
        let count = 100_000
        try await F.seedRoom("big", devices: count, in: store)
        try await F.seedLevels(room: "big", in: store)
        let clock = ContinuousClock()
        var outcome: CreateOutcome?
        let elapsed = try await clock.measure {
            outcome = try await store.createNotification(
                F.notification(room: "big", sender: "user-1"),
                recipients: .init(
                    roomId: "big",
                    mentionedUserIds: ["user-11", "user-21", "user-10"],
                    excludeUserId: "user-1"
                )
            )
        }
        // All but the sender, the 10,000 at none and the 9,999 others at mentions, plus the two mentioned.
        #expect(outcome?.devices == count - 1 - 10_000 - 9_999 + 2)
        print("[ScaleTests] \(kind): createNotification by levels for \(count) members took \(elapsed)")
    }

    /// The fan-out and claim queries walk indexes driven by the recipients / due time, never a whole table.
    @Test(arguments: [true, false]) func queryPlansUseTheIndexes(explicitRecipients: Bool) async throws {
        let store = try SQLiteStore.temporary()
        let plans = try await store.withConnection { db in
            return try [
                SQLiteStore.insertDeliveriesSQL(explicitRecipients: explicitRecipients), SQLiteStore.dueAfterSQL,
                SQLiteStore.dueAtSQL, SQLiteStore.liveLeasesSQL, SQLiteStore.notificationOfDeliverySQL,
                SQLiteStore.readersSQL, SQLiteStore.readersDittoSQL, SQLiteStore.readersAmongSQL,
                SQLiteStore.readersAmongDittoSQL,
            ].map { sql in
                try db.withStatement("EXPLAIN QUERY PLAN " + sql) { row in
                    var lines: [String] = []
                    while try row.step() { lines.append(row.string(3)) }
                    return lines
                }
            }
        }
        #expect(
            plans[0].contains(
                "SEARCH d USING COVERING INDEX devices_by_user_state (app_id=? AND user_id=? AND state=?)"
            ),
            "\(plans[0])"
        )
        #expect(!plans[0].contains { $0.hasPrefix("SCAN d") || $0.hasPrefix("SCAN room_members") })
        #expect(
            plans[1].contains(
                "SEARCH dl USING INDEX deliveries_due (app_id=? AND next_attempt_at>? AND next_attempt_at<?)"
            ),
            "\(plans[1])"
        )
        #expect(
            plans[2].contains("SEARCH dl USING INDEX deliveries_due (app_id=? AND next_attempt_at=? AND id>?)"),
            "\(plans[2])"
        )
        // The device through the per-user index, which covers what the claim reads (a fan-out's deliveries are
        // in user order): never the devices table at random.
        for plan in plans[1...2] {
            #expect(
                plan.contains("SEARCH d USING COVERING INDEX devices_by_user_state (app_id=? AND user_id=?) LEFT-JOIN"),
                "\(plan)"
            )
        }
        #expect(
            plans[3].contains(
                "SEARCH delivery_leases USING INDEX delivery_leases_by_run (app_id=? AND next_attempt_at>?)"
            ),
            "\(plans[3])"
        )
        #expect(
            plans[4] == ["SEARCH notifications USING INDEX notifications_by_deliveries (first_delivery_id<?)"],
            "\(plans[4])"
        )
        #expect(!(plans[1] + plans[2]).contains { $0.contains("TEMP B-TREE") }, "a claim sorts nothing")
        // A claim's readers of a room: a range of positions read since the message, never the room's members;
        // or, past its limit, a seek of the primary key per recipient.
        for (plan, table) in zip(plans[5...6], ["room_members", "ditto_subscriptions"]) {
            #expect(
                plan == ["SEARCH rp USING COVERING INDEX \(table)_by_read (app_id=? AND room_id=? AND read_at>?)"],
                "\(plan)"
            )
        }
        for plan in plans[7...8] {
            #expect(plan.contains("SEARCH rp USING PRIMARY KEY (app_id=? AND room_id=? AND user_id=?)"), "\(plan)")
        }
    }

    /// Creating deliveries and recording results build no ephemeral table: SQLite 3.40 builds one for a CHECK
    /// of `status IN` more than two values every time it runs (migration 4 replaced it with ORs), and the
    /// check still refuses an unknown status.
    @Test func writingDeliveriesBuildsNoEphemeralTable() async throws {
        let store = try SQLiteStore.temporary()
        let opcodes = try await store.withConnection { db in
            try [
                SQLiteStore.insertDeliveriesSQL(explicitRecipients: false),
                SQLiteStore.insertDeliveriesSQL(explicitRecipients: true), SQLiteStore.recordResultSQL,
                SQLiteStore.recordSentRunSQL,
            ].map { sql in
                try db.withStatement("EXPLAIN " + sql) { row in
                    var names: [String] = []
                    while try row.step() { names.append(row.string(1)) }
                    return names
                }
            }
        }
        for recording in opcodes[2...3] {
            #expect(recording.contains("Halt") && !recording.contains("OpenEphemeral"), "\(recording)")
        }
        // The fan-out's json_each over explicit recipients is a virtual table, not an ephemeral one; DISTINCT
        // over them is one, built once per statement, so only the room form is checked whole. Its one
        // ephemeral table, the index of the mentioned users, is built once per statement too (behind `Once`),
        // not once per member.
        let ephemeral = opcodes[0].indices.filter { opcodes[0][$0] == "OpenEphemeral" }
        #expect(ephemeral.count == 1, "\(opcodes[0])")
        #expect(ephemeral.allSatisfy { $0 > 0 && opcodes[0][$0 - 1] == "Once" }, "\(opcodes[0])")
        await #expect(throws: StoreError.self) {
            try await store.execute(
                """
                INSERT INTO notifications (id, app_id, kind, room_id, sender_id, topic, push_type, priority,
                    payload, created_at)
                VALUES ('n', 'app-a', 'message', 'r', 's', 't', 'alert', 10, x'7b7d', 0);
                INSERT INTO deliveries (app_id, token, status) VALUES ('app-a', 'ab', 'lost');
                """
            )
        }
    }

    /// VmRSS from /proc/self/status, in kB (0 where unavailable).
    static func residentKilobytes() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return 0 }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
        }
        return 0
    }
}
