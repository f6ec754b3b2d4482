import RelayCore
import Synchronization
import Testing

/// ``ServiceGroup``: stops in reverse start order, a service that ends early stops the others, and a
/// shutdown that takes too long escalates.
@Suite struct ServiceGroupTests {
    /// What the test services did, in order (`"stop:b"`).
    final class Journal: Sendable {
        private let lines = Mutex<[String]>([])
        /// One event per line written, so a test waits for a line without polling.
        private let events = Mutex<[String: OneShotEvent]>([:])

        func write(_ line: String) {
            lines.withLock { $0.append(line) }
            event(line).signal()
        }
        var written: [String] { lines.withLock { $0 } }

        func event(_ line: String) -> OneShotEvent {
            events.withLock { events in
                if let event = events[line] { return event }
                let event = OneShotEvent()
                events[line] = event
                return event
            }
        }

        /// Waits (60 s at most) until `line` was written; false if it never was.
        func waitFor(_ line: String) async -> Bool {
            await event(line).wait(until: .now + .seconds(60))
        }
    }

    /// Writes `start:NAME`, runs until cancelled, writes `stop:NAME`.
    struct Recording: Service {
        let name: String
        let journal: Journal
        func run() async {
            journal.write("start:\(name)")
            await Task.waitUntilCancelled()
            journal.write("stop:\(name)")
        }
    }

    /// Writes `start:NAME`, then ends on its own: with an error when given one.
    struct Ending: Service {
        let name: String
        let journal: Journal
        let release: OneShotEvent
        var error: (any Error)?
        func run() async throws {
            journal.write("start:\(name)")
            await release.wait()
            if let error { throw error }
        }
    }

    /// Ignores cancellation: stops only when released (a part stuck in a slow call).
    struct Stubborn: Service {
        let name: String
        let journal: Journal
        let release: OneShotEvent
        func run() async {
            journal.write("start:\(name)")
            // Not the cancellable wait: an unstructured task's wait sees no cancellation of this one.
            await Task { await release.wait() }.value
            journal.write("stop:\(name)")
        }
    }

    struct Broken: Error {}

    @Test func gracefulShutdownStopsInReverseStartOrder() async throws {
        let journal = Journal()
        let names = ["first", "second", "third"]
        let group = ServiceGroup(
            services: names.map { .init($0, Recording(name: $0, journal: journal)) },
            logger: Logger(label: "test", handler: MemoryLogHandler())
        )
        let running = Task { try await group.run() }
        for name in names { #expect(await journal.waitFor("start:\(name)")) }
        group.triggerGracefulShutdown()
        try await running.value
        #expect(journal.written.filter { $0.hasPrefix("stop:") } == ["stop:third", "stop:second", "stop:first"])
    }

    @Test(arguments: [false, true]) func aServiceThatEndsStopsTheGroup(throwing: Bool) async throws {
        let journal = Journal()
        let release = OneShotEvent()
        let memory = MemoryLogHandler()
        let group = ServiceGroup(
            services: [
                .init("first", Recording(name: "first", journal: journal)),
                .init(
                    "ending",
                    Ending(name: "ending", journal: journal, release: release, error: throwing ? Broken() : nil)
                ),
                .init("third", Recording(name: "third", journal: journal)),
            ],
            logger: Logger(label: "test", handler: memory)
        )
        let running = Task { try await group.run() }
        for name in ["first", "ending", "third"] { #expect(await journal.waitFor("start:\(name)")) }
        release.signal()
        let error = await #expect(throws: ServiceGroupError.self) { try await running.value }
        #expect(error?.code == (throwing ? .serviceFailed : .serviceEnded))
        #expect(error?.service == "ending")
        #expect(journal.written.filter { $0.hasPrefix("stop:") } == ["stop:third", "stop:first"])
        let logged = memory.entries.filter { $0.metadata["service"] == "ending" }
        #expect(logged.map(\.message) == [throwing ? "service failed" : "service ended unexpectedly"])
    }

    @Test func aShutdownPastItsTimeoutCancelsEveryServiceStillRunning() async throws {
        let journal = Journal()
        let release = OneShotEvent()
        let memory = MemoryLogHandler()
        let group = ServiceGroup(
            services: [
                .init("first", Recording(name: "first", journal: journal)),
                .init("stuck", Stubborn(name: "stuck", journal: journal, release: release)),
            ],
            settings: .init(shutdownTimeout: .milliseconds(200), escalation: .cancelRemaining),
            logger: Logger(label: "test", handler: memory)
        )
        let running = Task { try await group.run() }
        for name in ["first", "stuck"] { #expect(await journal.waitFor("start:\(name)")) }
        group.triggerGracefulShutdown()
        // In order, `first` waits for `stuck`: past the timeout it is cancelled while `stuck` still runs.
        #expect(await journal.waitFor("stop:first"))
        #expect(!journal.written.contains("stop:stuck"))
        release.signal()
        let error = await #expect(throws: ServiceGroupError.self) { try await running.value }
        #expect(error?.code == .shutdownTimedOut)
        #expect(error?.service == "first,stuck")
        #expect(journal.written.filter { $0.hasPrefix("stop:") } == ["stop:first", "stop:stuck"])
        #expect(memory.entries.contains { $0.message.hasPrefix("shutdown bound reached") })
    }

    @Test func aServiceGroupWithoutServicesStopsWhenAsked() async throws {
        let group = ServiceGroup(services: [], logger: Logger(label: "test", handler: MemoryLogHandler()))
        group.triggerGracefulShutdown()
        try await group.run()
    }
}
