import Foundation
import RelayCore
import RelayStore
import Synchronization
import Testing

@testable import RelayOutbox

/// The dispatcher's queue of claimed deliveries: in-flight limits per app and platform, round robin, claim
/// windows, and draining on close.
@Suite struct DeliveryLanesTests {
    /// A delivery of `app` to an iPhone, or to a browser when `platform` is `.web`.
    static func job(_ id: Int64, app: String, platform: Platform = .ios) throws -> DeliveryJob {
        let token: PushToken =
            platform == .web
            ? .web(try WebPushToken(parsing: WebPushToken.prefix + String(repeating: "w", count: 43)))
            : .apns(try DeviceToken(parsing: String(repeating: "ab", count: 32), environment: .sandbox))
        return DeliveryJob(
            deliveryId: id,
            appId: app,
            token: token,
            attempts: 0,
            deviceRegisteredAt: Date(timeIntervalSince1970: 0),
            content: NotificationContent(
                id: UUID(),
                message: ChatMessage(roomId: "room", senderId: "alice", content: .text("hi")),
                sendAs: "com.example.chat",
                expiration: nil,
                createdAt: Date(timeIntervalSince1970: 0)
            )
        )
    }

    /// Set once by a task, read by the test.
    final class Flag: Sendable {
        private let value = Atomic<Bool>(false)
        var isSet: Bool { value.load(ordering: .sequentiallyConsistent) }
        func set() { value.store(true, ordering: .sequentiallyConsistent) }
    }

    static func lanes(perApp: Int = 2, capacity: Int = 8) -> DeliveryLanes<DeliveryJob> {
        DeliveryLanes(perAppLimit: perApp, capacity: capacity)
    }

    /// The lane of `app`'s pushes to `platform`.
    static func lane(_ app: String, _ platform: Platform = .ios) -> LaneKey { LaneKey(appId: app, platform: platform) }

    /// A lane at its limit waits while the other lanes go round robin: another app's, or its own app's
    /// pushes to another platform (browsers whose push service answers slowly hold up none of the app's
    /// iPhones).
    @Test(arguments: [LaneKey(appId: "b", platform: .ios), LaneKey(appId: "a", platform: .web)])
    func aLaneAtItsLimitWaitsWhileOtherLanesGoRoundRobin(other: LaneKey) async throws {
        let lanes = Self.lanes(perApp: 2)
        lanes.add(
            try (1...4).map { try Self.job($0, app: "a") }
                + (5...6).map { try Self.job($0, app: other.appId, platform: other.platform) }
        )
        var taken: [Int64] = []
        for _ in 0..<4 { taken.append(try #require(await lanes.take()).deliveryId) }
        // The two lanes alternate; a's iPhones' third and fourth wait for a free slot.
        #expect(taken == [1, 5, 2, 6])
        #expect(lanes.counts == (queued: 2, inFlight: 4))
        let waiting = Task { await lanes.take()?.deliveryId }
        lanes.finish(other)
        lanes.finish(other)
        #expect(lanes.counts.inFlight == 2)  // the other lane's slots do not let a's iPhones exceed their limit
        lanes.finish(Self.lane("a"))
        #expect(await waiting.value == 3)
    }

    /// A flush frees a batch's slots in the order its results came, in runs of a lane or interleaved: each
    /// lane gets back as many slots as it had results, and a lane with nothing left in it goes.
    @Test func slotsFreedFromInterleavedLanesReturnToEachLane() async throws {
        let lanes = Self.lanes(perApp: 2)
        lanes.add(try (1...3).map { try Self.job($0, app: "a") } + (4...6).map { try Self.job($0, app: "b") })
        var taken: [Int64] = []
        for _ in 0..<4 { taken.append(try #require(await lanes.take()).deliveryId) }
        #expect(taken == [1, 4, 2, 5])
        lanes.finish([Self.lane("a"), Self.lane("a"), Self.lane("b")])
        #expect(lanes.counts == (queued: 2, inFlight: 1))
        taken = []
        for _ in 0..<2 { taken.append(try #require(await lanes.take()).deliveryId) }
        #expect(taken == [3, 6])
        lanes.finish([Self.lane("b"), Self.lane("a"), Self.lane("b")])
        #expect(lanes.counts == (queued: 0, inFlight: 0))
        #expect(try #require(lanes.claimWindow()).lanes.isEmpty)
    }

    /// The in-flight limit over all lanes is the dispatcher's `concurrency`: slots are freed only by
    /// `finish` (a result recorded), whichever lane frees them, and the wait for none in flight ends with the
    /// last one.
    @Test func theInFlightLimitHoldsOverAllLanesUntilSlotsAreFinished() async throws {
        let lanes = DeliveryLanes<DeliveryJob>(perAppLimit: 2, capacity: 8, inFlightLimit: 3)
        lanes.add(try (1...2).map { try Self.job($0, app: "a") } + (3...4).map { try Self.job($0, app: "b") })
        var taken: [Int64] = []
        for _ in 0..<3 { taken.append(try #require(await lanes.take()).deliveryId) }
        #expect(taken == [1, 3, 2])
        let waiting = Task { await lanes.take()?.deliveryId }
        let idleEnded = Self.Flag()
        let idle = Task {
            await lanes.untilNoneInFlight()
            idleEnded.set()
        }
        // b's lane has a free slot of its own, but three are in flight in all.
        try await Task.sleep(for: .milliseconds(50))
        #expect(lanes.counts == (queued: 1, inFlight: 3))
        lanes.finish([Self.lane("a"), Self.lane("a")])
        #expect(await waiting.value == 4)
        lanes.finish([Self.lane("b")])
        #expect(lanes.counts.inFlight == 1)
        try await Task.sleep(for: .milliseconds(50))
        #expect(!idleEnded.isSet)
        lanes.finish(Self.lane("b"))
        await idle.value
        #expect(idleEnded.isSet)
        #expect(lanes.counts == (queued: 0, inFlight: 0))
    }

    @Test func theClaimWindowFillsLanesToTwoRoundsAndWaitsForHalfOfACapacityOrLane() throws {
        let lanes = Self.lanes(perApp: 8, capacity: 32)
        let empty = try #require(lanes.claimWindow())
        // A burst starts with a short claim: a quarter of the app's in-flight limit.
        #expect(empty.room == 32 && empty.appRoom("a") == 2)
        lanes.add(try (1...2).map { try Self.job($0, app: "a") })
        // Then one claim may be all one app's: its lane holds two rounds of its in-flight limit.
        #expect(try #require(lanes.claimWindow()).appRoom("a") == 14)
        lanes.add(try (3...11).map { try Self.job($0, app: "a") })
        // a has more than half its lane queued: it sits this claim out; other apps may still come.
        let window = try #require(lanes.claimWindow())
        #expect(window.appRoom("a") == 0 && window.appRoom("b") == 2 && window.room == 21)
        lanes.add(try (12...17).map { try Self.job($0, app: "b") })
        // 17 queued: more than half the capacity, so no claim is due.
        #expect(lanes.claimWindow() == nil)
    }

    @Test func aLaneFallingToHalfSignalsRoom() async throws {
        let lanes = Self.lanes(perApp: 2, capacity: 100)
        lanes.add(try (1...4).map { try Self.job($0, app: "a") })
        #expect(!lanes.roomSignal.isPending)
        _ = await lanes.take()
        #expect(!lanes.roomSignal.isPending)  // 3 queued
        _ = await lanes.take()
        #expect(lanes.roomSignal.isPending)  // 2 queued: half of a's lane
        #expect(try #require(lanes.claimWindow()).appRoom("a") == 2)
    }

    @Test func closeLetsTakersDrainTheQueueThenStopsThem() async throws {
        let lanes = Self.lanes(perApp: 1)
        let first = Task { await lanes.take() }
        lanes.add([try Self.job(1, app: "a"), try Self.job(2, app: "a")])
        #expect(await first.value?.deliveryId == 1)
        lanes.close()
        let second = Task { await lanes.take()?.deliveryId }
        lanes.finish(Self.lane("a"))
        #expect(await second.value == 2)
        #expect(await lanes.take() == nil)
        lanes.finish(Self.lane("a"))
        #expect(lanes.counts == (queued: 0, inFlight: 0))
    }

    /// A stop: the jobs still queued come back out, oldest first per app, and are not handed to any taker;
    /// the jobs in flight finish, then every waiting taker is told to stop.
    @Test func closeTakingQueuedReturnsWhatNoTakerTook() async throws {
        let lanes = Self.lanes(perApp: 1)
        lanes.add(try (1...3).map { try Self.job($0, app: "a") } + [try Self.job(4, app: "b")])
        let inFlight = [try #require(await lanes.take()).deliveryId, try #require(await lanes.take()).deliveryId]
        #expect(Set(inFlight) == [1, 4])
        let waiting = Task { await lanes.take() }
        let queued = lanes.closeTakingQueued()
        #expect(queued.map(\.deliveryId) == [2, 3])
        #expect(lanes.counts == (queued: 0, inFlight: 2))
        lanes.finish(Self.lane("a"))
        lanes.finish(Self.lane("b"))
        #expect(await waiting.value == nil)
        #expect(await lanes.take() == nil)
        #expect(lanes.counts == (queued: 0, inFlight: 0))
    }

    /// A claim is per app and may bring jobs of any of its platforms, so its room is that of the app's
    /// fullest lane: no lane can overflow its two rounds.
    @Test func anAppsClaimRoomIsThatOfItsFullestLane() throws {
        let lanes = Self.lanes(perApp: 8, capacity: 64)
        lanes.add(try (1...3).map { try Self.job($0, app: "a") })
        lanes.add(try (4...8).map { try Self.job($0, app: "a", platform: .web) })
        let window = try #require(lanes.claimWindow())
        #expect(window.lanes == [Self.lane("a"): 13, Self.lane("a", .web): 11])
        #expect(window.appRoom("a") == 11 && window.appRoom("b") == 2)
        lanes.add(try (9...12).map { try Self.job($0, app: "a", platform: .web) })
        // The browsers' lane is more than half full: the app sits this claim out, whatever its iPhones'.
        #expect(try #require(lanes.claimWindow()).appRoom("a") == 0)
    }
}
