import Testing

@testable import RelayOutbox

/// The flusher's wait between writes: it ends when the results it gathers are there, at close, or at its
/// linger, and the wait for a first result comes back after each take.
@Suite(.timeLimit(.minutes(1))) struct ResultBufferTests {
    let signal = WakeSignal()
    let buffer: ResultBuffer

    init() {
        buffer = ResultBuffer(signal: signal)
    }

    /// Hands a delivery's result over in a task of its own (it returns once a take lets it go).
    func record(_ id: Int64) throws -> Task<Void, Never> {
        let job = OutboxJob.delivery(try DeliveryLanesTests.job(id, app: "app"))
        return Task { await buffer.record(job, .sent) }
    }

    /// Waits until `count` results are handed over.
    func waitFor(_ count: Int) async throws {
        while buffer.count < count { try await Task.sleep(for: .milliseconds(1)) }
    }

    /// Takes the batch and lets its workers go.
    func takeAndRelease(_ recorders: [Task<Void, Never>]) async -> Int {
        let (results, waiters, _, _) = buffer.takeAll()
        for waiter in waiters { waiter.resume() }
        for recorder in recorders { await recorder.value }
        return results.count
    }

    @Test func aGatherWaitsForItsCountNotTheFirstResult() async throws {
        let gatherer = Task { await buffer.gather(3, within: .seconds(3600)) }
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        var recorders = [try record(1), try record(2)]
        try await waitFor(2)
        #expect(signal.hasWaiter)
        recorders.append(try record(3))
        await gatherer.value
        #expect(await takeAndRelease(recorders) == 3)
    }

    @Test func aGatherReturnsAtOnceWhenTheResultsAreThere() async throws {
        let recorders = [try record(1), try record(2)]
        try await waitFor(2)
        // The first result's signal, kept for a wait, does not end a gather of more.
        #expect(signal.isPending)
        await buffer.gather(2, within: .seconds(3600))
        #expect(await takeAndRelease(recorders) == 2)
    }

    @Test func closingEndsAGather() async throws {
        let gatherer = Task { await buffer.gather(3, within: .seconds(3600)) }
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        buffer.close()
        await gatherer.value
        #expect(buffer.takeAll().closed)
    }

    @Test func aGatherEndsAtItsLinger() async throws {
        let recorder = try record(1)
        try await waitFor(1)
        await buffer.gather(2, within: .milliseconds(1))
        #expect(await takeAndRelease([recorder]) == 1)
    }

    @Test func afterATakeTheFirstResultSignalsAgain() async throws {
        let gatherer = Task { await buffer.gather(2, within: .seconds(3600)) }
        while !signal.hasWaiter { try await Task.sleep(for: .milliseconds(1)) }
        let first = try record(1)
        try await waitFor(1)
        #expect(await takeAndRelease([first]) == 1)
        // The take ended the gather's count: one result now wakes the flusher's wait.
        let second = try record(2)
        await gatherer.value
        #expect(await takeAndRelease([second]) == 1)
    }
}
