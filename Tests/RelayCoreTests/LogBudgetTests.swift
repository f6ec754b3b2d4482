import Testing

@testable import RelayCore

/// How a flood of refused requests is logged: a bounded number of lines an interval, and a count of the rest.
@Suite struct LogBudgetTests {
    @Test func linesPastTheLimitAreCountedAndReportedInTheNextInterval() {
        let budget = LogBudget(limit: 3, interval: .seconds(1))
        let start = ContinuousClock.now
        var decisions = (0..<10).map { budget.admit(at: start + .milliseconds($0)) }
        #expect(decisions.prefix(3).allSatisfy { $0 == .log(suppressedBefore: 0) })
        #expect(decisions.dropFirst(3).allSatisfy { $0 == .suppress })
        // Within the same interval nothing more goes through.
        #expect(budget.admit(at: start + .milliseconds(999)) == .suppress)
        // The next interval's first line carries the count, once.
        decisions = (0..<4).map { budget.admit(at: start + .seconds(1) + .milliseconds($0)) }
        #expect(
            decisions == [.log(suppressedBefore: 8), .log(suppressedBefore: 0), .log(suppressedBefore: 0), .suppress]
        )
        #expect(budget.takeSuppressed() == 1)
        #expect(budget.takeSuppressed() == 0)
        #expect(budget.admit(at: start + .seconds(5)) == .log(suppressedBefore: 0))
    }

    /// A logger over a budgeted handler (the push services' and the dispatcher's lines) writes the budget's
    /// lines, and the count of the rest with the next line let through or at a flush.
    @Test func aBudgetedHandlerPassesItsBudgetAndCountsTheRest() {
        let lines = MemoryLogHandler()
        let budget = LogBudget(limit: 3, interval: .seconds(3600), lines: "delivery lines")
        let logger = Logger(label: "relay", handler: BudgetedLogHandler(lines, budget: budget))
        for attempt in 0..<10 { logger.warning("Web Push request failed", ["attempt": attempt]) }
        #expect(lines.entries.map(\.message) == Array(repeating: "Web Push request failed", count: 3))
        budget.flush(to: Logger(label: "relay", handler: lines))
        #expect(lines.entries.last?.message == "delivery lines not logged")
        #expect(lines.entries.last?.metadata["count"] == "7")
    }

    @Test func clientTextIsCutToAFewHundredBytes() {
        #expect(LogText.clipped("GET") == "GET")
        let long = String(repeating: "X", count: 100_000)
        let cut = LogText.clipped(long)
        #expect(cut.utf8.count == LogText.maxBytes && cut.hasSuffix("…"))
        // Cut at a scalar boundary: four-byte emoji never split.
        let emoji = LogText.clipped(String(repeating: "😀", count: 200))
        #expect(emoji.utf8.count <= LogText.maxBytes && emoji.hasSuffix("…"))
        #expect(emoji.dropLast().allSatisfy { $0 == "😀" })
        #expect(LogText.clipped(String(repeating: "a", count: LogText.maxBytes)).utf8.count == LogText.maxBytes)
    }
}
