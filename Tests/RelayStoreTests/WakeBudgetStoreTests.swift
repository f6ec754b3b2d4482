import Foundation
import RelayCore
import Testing

@testable import RelayStore

/// Wake budgets on each engine (``Store/takeWakePushes(appId:tokens:perHour:at:)``): per device and app, per
/// UTC clock hour, in the order asked, shared by relays on one database, past hours pruned.
@Suite struct WakeBudgetStoreTests {
    typealias F = StoreFixtures

    /// 10:00:00 UTC of some day, and `minutes` after it.
    static func time(hour: Int64 = 500_000, minutes: Double = 0) -> Date {
        Date(timeIntervalSince1970: Double(hour) * 3600 + minutes * 60)
    }

    @Test(arguments: StoreKind.allCases) func aDeviceIsGivenItsBudgetPerClockHourInTheOrderAsked(
        kind: StoreKind
    ) async throws {
        let store = try await kind.makeStore()
        // Budget 3: device a asks four times, b once; a's first three wake, its fourth is an alert.
        #expect(
            try await store.takeWakePushes(
                appId: "app",
                tokens: ["a", "a", "b", "a", "a"],
                perHour: 3,
                at: Self.time(minutes: 1)
            ) == [true, true, true, true, false]
        )
        // Later in the same hour: a's budget is spent, b has two left.
        #expect(
            try await store.takeWakePushes(
                appId: "app",
                tokens: ["a", "b", "b", "b"],
                perHour: 3,
                at: Self.time(minutes: 59.9)
            )
                == [false, true, true, false]
        )
        // Another app's device with the same token has a budget of its own.
        #expect(
            try await store.takeWakePushes(appId: "other", tokens: ["a"], perHour: 3, at: Self.time(minutes: 30)) == [
                true
            ]
        )
        // The next clock hour starts again, whatever was used in the last one.
        #expect(
            try await store.takeWakePushes(
                appId: "app",
                tokens: ["a", "a", "a", "a"],
                perHour: 3,
                at: Self.time(hour: 500_001)
            ) == [true, true, true, false]
        )
        #expect(try await store.takeWakePushes(appId: "app", tokens: [], perHour: 3, at: Self.time()) == [])
    }

    @Test(arguments: StoreKind.allCases) func relaysOnOneDatabaseShareEachDevicesBudget(kind: StoreKind) async throws {
        let database = try await kind.makeDatabase()
        let stores = try (0..<3).map { _ in try database.open() }
        // Three relays each ask for device x ten times, one claim at a time, all at once: 4 wake in all.
        let given = try await withThrowingTaskGroup(of: Int.self) { group in
            for store in stores {
                group.addTask {
                    var given = 0
                    for _ in 0..<10 {
                        let answer = try await store.takeWakePushes(
                            appId: "app",
                            tokens: ["x"],
                            perHour: 4,
                            at: Self.time(minutes: 5)
                        )
                        given += answer.filter { $0 }.count
                    }
                    return given
                }
            }
            return try await group.reduce(0, +)
        }
        #expect(given == 4)
    }

    @Test(arguments: StoreKind.allCases) func countsOfPastHoursArePruned(kind: StoreKind) async throws {
        let store = try await kind.makeStore()
        _ = try await store.takeWakePushes(appId: "app", tokens: ["a", "b", "c"], perHour: 3, at: Self.time())
        #expect(try await F.count("wake_budgets", in: store) == 3)
        _ = try await store.takeWakePushes(appId: "app", tokens: ["d"], perHour: 3, at: Self.time(hour: 500_001))
        #expect(try await F.count("wake_budgets", in: store) == 1)
    }
}
