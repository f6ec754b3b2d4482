import Foundation
import Testing

@testable import RelayCore
@testable import RelayOutbox

/// The flusher's wait between writes: it ends when the results it asks for are there, at close, or at its
/// timeout, and a result handed over while nobody waits wakes no later wait. A batch comes with the lane of
/// each of its jobs, whose slots the flusher frees.
@Suite(.timeLimit(.minutes(1))) struct ResultBufferTests {
    let buffer = ResultBuffer()
    var signal: WakeSignal { buffer.signal }

    /// Hands a delivery's result over, from another task (a send's completion runs on a thread of its own).
    func record(_ id: Int64, app: String = "app") async throws {
        let job = OutboxJob.delivery(try DeliveryLanesTests.job(id, app: app))
        await Task.detached { [buffer] in buffer.hand(job, .sent, lane: job.laneKey) }.value
    }

    /// Waits until a wait is parked on the buffer's signal.
    func parked() async throws {
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Takes the batch into a new one, and whether the buffer was closed.
    func takeAll() -> (batch: ResultBuffer.Batch, closed: Bool) {
        var batch = ResultBuffer.Batch()
        let closed = buffer.takeAll(into: &batch)
        return (batch, closed)
    }

    /// Takes the batch; its size.
    func take() -> Int { takeAll().batch.count }

    @Test func aWaitEndsAtItsCountNotAtTheFirstResult() async throws {
        let waiter = Task { await buffer.wait(for: 3, within: .seconds(3600)) }
        try await parked()
        try await record(1)
        try await record(2)
        #expect(signal.hasWaiter)
        try await record(3)
        await waiter.value
        #expect(take() == 3)
    }

    @Test func aResultHandedOverWhileNobodyWaitsWakesNoLaterWait() async throws {
        try await record(1)
        await buffer.wait(for: 1, within: .seconds(3600))
        #expect(take() == 1)
        // The take ended that wait's count: the next result, with nobody waiting, signals nothing.
        try await record(2)
        #expect(!signal.isPending)
        // Parks: one result is there, two are asked for, and no signal was kept for it.
        let waiter = Task { await buffer.wait(for: 2, within: .seconds(3600)) }
        try await parked()
        try await record(3)
        await waiter.value
        #expect(take() == 2)
    }

    @Test func aWaitReturnsAtOnceWhenItsResultsAreThere() async throws {
        try await record(1)
        try await record(2)
        await buffer.wait(for: 2, within: .seconds(3600))
        #expect(take() == 2)
    }

    @Test func closingEndsAWaitAndEveryLaterOne() async throws {
        let waiter = Task { await buffer.wait(for: 3, within: .seconds(3600)) }
        try await parked()
        buffer.close()
        await waiter.value
        #expect(signal.take() == false)
        await buffer.wait(for: 3, within: .seconds(3600))
        #expect(takeAll().closed)
    }

    @Test func aWaitEndsAtItsTimeout() async throws {
        try await record(1)
        await buffer.wait(for: 2, within: .milliseconds(1))
        #expect(take() == 1)
    }

    @Test func afterATakeAWaitForOneIsWokenByTheNextResult() async throws {
        try await record(1)
        #expect(take() == 1)
        let waiter = Task { await buffer.wait(for: 1, within: .seconds(3600)) }
        try await parked()
        try await record(2)
        await waiter.value
        #expect(take() == 1)
    }

    @Test func aBatchNamesTheLaneOfEachResultAndTheNotificationsItEnds() async throws {
        try await record(1, app: "a")
        try await record(2, app: "b")
        let batch = takeAll().batch
        #expect(batch.deliveries.map(\.deliveryId) == [1, 2])
        #expect(batch.lanes == [LaneKey(appId: "a", platform: .ios), LaneKey(appId: "b", platform: .ios)])
        #expect(batch.ended.map(\.appId) == ["a", "b"])
        #expect(takeAll().batch.lanes.isEmpty)
    }

    /// A badge update's result goes with the badge updates, counts toward the wait, and ends no notification.
    @Test func aBadgeUpdatesResultIsKeptApartFromTheDeliveries() async throws {
        let delivery = try DeliveryLanesTests.job(1, app: "a")
        let update = OutboxJob.badgeUpdate(
            BadgeUpdateJob(
                updateId: 7,
                appId: "a",
                token: delivery.token,
                attempts: 0,
                deviceRegisteredAt: Date(timeIntervalSince1970: 0),
                badge: 3
            )
        )
        buffer.hand(.delivery(delivery), .sent, lane: delivery.laneKey)
        buffer.hand(update, .sent, lane: update.laneKey)
        #expect(buffer.count == 2)
        await buffer.wait(for: 2, within: .seconds(3600))
        let batch = takeAll().batch
        #expect(batch.deliveries.map(\.deliveryId) == [1])
        #expect(batch.badgeUpdates.map(\.updateId) == [7])
        #expect(batch.lanes.count == 2)
        #expect(batch.ended.map(\.appId) == ["a"])
    }

    /// A result not to be recorded (``QueuedJob/records(_:at:)``) still frees its job's slot with the batch,
    /// and ends no notification.
    @Test func aResultNotRecordedStillFreesItsSlot() async throws {
        let delivery = OutboxJob.delivery(try DeliveryLanesTests.job(1, app: "a"))
        buffer.hand(delivery, nil, lane: delivery.laneKey)
        buffer.hand(delivery, .sent, lane: delivery.laneKey)
        let batch = takeAll().batch
        #expect(batch.lanes.count == 2 && batch.deliveries.count == 1 && batch.ended.count == 1)
    }

    /// The flusher passes one batch to every take: each take holds only what was handed over since the one
    /// before, though the storage of the batch before takes the next results.
    @Test func aBatchTakenAgainHoldsOnlyWhatCameBetween() async throws {
        var batch = ResultBuffer.Batch()
        try await record(1, app: "a")
        try await record(2, app: "a")
        _ = buffer.takeAll(into: &batch)
        try await record(3, app: "b")
        _ = buffer.takeAll(into: &batch)
        #expect(batch.deliveries.map(\.deliveryId) == [3])
        #expect(batch.lanes == [LaneKey(appId: "b", platform: .ios)])
        #expect(batch.ended.map(\.appId) == ["b"])
        _ = buffer.takeAll(into: &batch)
        #expect(batch.deliveries.isEmpty && batch.lanes.isEmpty && batch.ended.isEmpty)
    }
}
