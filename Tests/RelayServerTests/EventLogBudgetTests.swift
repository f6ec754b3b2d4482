import APNsMock
import Foundation
import RelayCore
import RelayTestSupport
import Testing

/// The `device registered` and `webhook accepted` lines take a budget of their own, as many a second as the
/// access log's answered requests: a backend registering its user base writes a bounded number of them, and
/// the lines left out are counted (at the latest when the relay stops).
@Suite struct EventLogBudgetTests {
    @Test func registrationsPastTheBudgetAreCountedNotLogged() async throws {
        try await withRelayTestBed(appCount: 1, script: MockScript(), configure: { _ in }) { bed in
            let lines = MemoryLogHandler()
            let logger = Logger(label: "test", level: .info, handler: lines)
            let testRelay = bed.testRelay(mode: .router, options: .init(logger: logger))
            let count = 1_000
            let seconds = try await testRelay.run {
                let started = ContinuousClock.now
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for worker in 0..<8 {
                        group.addTask {
                            for index in stride(from: worker, to: count, by: 8) {
                                let token = String(format: "%064x", index + 1)
                                let response = try await testRelay.call(
                                    "POST",
                                    "/v1/devices",
                                    json: ["token": token, "userId": "user-\(index)"],
                                    bearer: bed.apps[0].apiKey
                                )
                                #expect(response.status == 201, "\(response.text)")
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                return (ContinuousClock.now - started) / .seconds(1)
            }
            let registered = lines.entries.filter { $0.message == "device registered" }.count
            let leftOut = lines.entries.filter { $0.message == "device and webhook lines not logged" }
                .map { Int($0.metadata["count"] ?? "") ?? 0 }.reduce(0, +)
            #expect(registered + leftOut == count, "\(registered) logged, \(leftOut) left out")
            #expect(registered <= 200 * (Int(seconds.rounded(.up)) + 1), "\(registered) lines in \(seconds) s")
        }
    }
}
