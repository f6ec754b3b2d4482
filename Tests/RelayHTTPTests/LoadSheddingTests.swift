import Testing

@testable import RelayHTTP

/// Which unfinished request gives up its connection first, and when shedding starts, as pure functions.
@Suite struct LoadSheddingTests {
    let now = ContinuousClock.now
    let shedding = LoadShedding(limit: 2000, bytesPerSecond: 1024)

    func candidate(_ key: UInt, age seconds: Double, bytes: Int = 0) -> LoadShedding.Candidate {
        .init(key: key, since: now - .milliseconds(Int(seconds * 1000)), bytes: bytes)
    }

    @Test func sheddingStartsAtNinetyPercentAndDropsABatch() {
        #expect(shedding.watermark == 1800)
        #expect(shedding.excess(live: 1799) == 0)
        #expect(shedding.excess(live: 1800) == 20)
        #expect(shedding.excess(live: 1850) == 70)
        #expect(LoadShedding(limit: 1, bytesPerSecond: 1).excess(live: 1) == 1)
    }

    @Test func theSlowestBodyGoesFirst() {
        let candidates = [
            candidate(1, age: 4, bytes: 4000),  // about 1 KiB/s
            candidate(2, age: 4, bytes: 4),  // a byte a second
            candidate(3, age: 4, bytes: 40_000),  // fast
        ]
        #expect(shedding.victims(among: candidates, count: 1, now: now) == [2])
        #expect(shedding.victims(among: candidates, count: 3, now: now) == [2, 1, 3])
    }

    @Test func anOldWaitGoesBeforeAYoungOne() {
        let candidates = [candidate(1, age: 0.01), candidate(2, age: 8), candidate(3, age: 2)]
        #expect(shedding.victims(among: candidates, count: 2, now: now) == [2, 3])
    }

    /// A trickling body holding its slot for seconds goes before a request that just began, so a new client
    /// keeps its connection; a body that kept up goes after both old waits.
    @Test func aNewRequestOutlastsTricklersAndIdlers() {
        let candidates = [
            candidate(1, age: 0.005),  // a new client's headers on their way
            candidate(2, age: 6, bytes: 6),  // trickling its body
            candidate(3, age: 9),  // idle keep-alive
            candidate(4, age: 6, bytes: 60_000),  // a large body arriving fast
        ]
        #expect(shedding.victims(among: candidates, count: 4, now: now) == [3, 2, 1, 4])
    }

    /// A client that stopped reading its answers 8 s ago, having taken 2 KiB, goes before a body trickling
    /// for 3 s and a new request; one taking its answers fast goes last.
    @Test func aStalledAnswerGoesByHowLongItWaited() {
        let candidates = [
            candidate(1, age: 0.01),  // a new client
            candidate(2, age: 8, bytes: 2048),  // a slow reader
            candidate(3, age: 3, bytes: 30),  // trickling its body
            candidate(4, age: 8, bytes: 4_000_000),  // a fast reader of large answers
        ]
        #expect(shedding.victims(among: candidates, count: 4, now: now) == [2, 3, 1, 4])
    }

    @Test func equalShortfallsGoOldestFirst() {
        let candidates = [candidate(1, age: 3, bytes: 1024), candidate(2, age: 2)]
        #expect(shedding.victims(among: candidates, count: 1, now: now) == [1])
    }

    @Test func noneAskedNoneDropped() {
        #expect(shedding.victims(among: [candidate(1, age: 5)], count: 0, now: now).isEmpty)
        #expect(shedding.victims(among: [], count: 3, now: now).isEmpty)
    }

    @Test func theBodyPaceStartsAfterItsGrace() {
        let pace = BodyPace(bytesPerSecond: 1024, grace: .seconds(5))
        #expect(pace.required(after: .seconds(4)) == 0)
        #expect(pace.required(after: .seconds(7)) == 2048)
        #expect(pace.isBehind(bytes: 2000, after: .seconds(7)))
        #expect(!pace.isBehind(bytes: 2048, after: .seconds(7)))
        #expect(!pace.isBehind(bytes: 0, after: .seconds(5)))
    }
}
