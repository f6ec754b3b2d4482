import Testing

@testable import RelayStore

/// What a hand-back leaves of a lease's run (``RelayStore/LeaseRun/removing(_:)``).
@Suite struct LeaseRunTests {
    @Test func aRunKeepsTheIdsAroundThoseHandedBack() {
        let run = LeaseRun(nextAttemptAt: 7, first: 10, last: 19)
        let pieces = run.removing([10, 13, 14, 19, 30])
        #expect(pieces.map { [$0.first, $0.last] } == [[11, 12], [15, 18]])
        #expect(pieces.allSatisfy { $0.nextAttemptAt == 7 })
        #expect(run.removing(Set(10...19)).isEmpty)
        #expect(run.removing([]).map { [$0.first, $0.last] } == [[10, 19]])
    }
}
