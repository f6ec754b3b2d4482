import Testing

@testable import RelayOutbox

/// The flusher's wait between writes: it ends when the results it asks for are there, at close, or at its
/// timeout, and a result handed over while nobody waits wakes no later wait.
@Suite(.timeLimit(.minutes(1))) struct ResultBufferTests {
    let buffer = ResultBuffer()
    var signal: WakeSignal { buffer.signal }

    /// Hands a delivery's result over in a task of its own (it returns once a take lets it go).
    func record(_ id: Int64) throws -> Task<Void, Never> {
        let job = OutboxJob.delivery(try DeliveryLanesTests.job(id, app: "app"))
        return Task { await buffer.record(job, .sent) }
    }

    /// Waits until `count` results are handed over.
    func handedOver(_ count: Int) async throws {
        while buffer.count < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Waits until a wait is parked on the buffer's signal.
    func parked() async throws {
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Takes the batch and lets its workers go.
    func takeAndRelease(_ recorders: [Task<Void, Never>]) async -> Int {
        let (results, waiters, _, _) = buffer.takeAll()
        for waiter in waiters { waiter.resume() }
        for recorder in recorders { await recorder.value }
        return results.count
    }

    @Test func aWaitEndsAtItsCountNotAtTheFirstResult() async throws {
        let waiter = Task { await buffer.wait(for: 3, within: .seconds(3600)) }
        try await parked()
        var recorders = [try record(1), try record(2)]
        try await handedOver(2)
        #expect(signal.hasWaiter)
        recorders.append(try record(3))
        await waiter.value
        #expect(await takeAndRelease(recorders) == 3)
    }

    @Test func aResultHandedOverWhileNobodyWaitsWakesNoLaterWait() async throws {
        let first = try record(1)
        try await handedOver(1)
        await buffer.wait(for: 1, within: .seconds(3600))
        #expect(await takeAndRelease([first]) == 1)
        // The take ended that wait's count: the next result, with nobody waiting, signals nothing.
        var recorders = [try record(2)]
        try await handedOver(1)
        #expect(!signal.isPending)
        // Parks: one result is there, two are asked for, and no signal was kept for it.
        let waiter = Task { await buffer.wait(for: 2, within: .seconds(3600)) }
        try await parked()
        recorders.append(try record(3))
        await waiter.value
        #expect(await takeAndRelease(recorders) == 2)
    }

    @Test func aWaitReturnsAtOnceWhenItsResultsAreThere() async throws {
        let recorders = [try record(1), try record(2)]
        try await handedOver(2)
        await buffer.wait(for: 2, within: .seconds(3600))
        #expect(await takeAndRelease(recorders) == 2)
    }

    @Test func closingEndsAWaitAndEveryLaterOne() async throws {
        let waiter = Task { await buffer.wait(for: 3, within: .seconds(3600)) }
        try await parked()
        buffer.close()
        await waiter.value
        #expect(signal.take() == false)
        await buffer.wait(for: 3, within: .seconds(3600))
        #expect(buffer.takeAll().closed)
    }

    @Test func aWaitEndsAtItsTimeout() async throws {
        let recorder = try record(1)
        try await handedOver(1)
        await buffer.wait(for: 2, within: .milliseconds(1))
        #expect(await takeAndRelease([recorder]) == 1)
    }

    @Test func afterATakeAWaitForOneIsWokenByTheNextResult() async throws {
        let first = try record(1)
        try await handedOver(1)
        #expect(await takeAndRelease([first]) == 1)
        let waiter = Task { await buffer.wait(for: 1, within: .seconds(3600)) }
        try await parked()
        let second = try record(2)
        await waiter.value
        #expect(await takeAndRelease([second]) == 1)
    }
}
