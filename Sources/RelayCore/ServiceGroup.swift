import Foundation
import Synchronization

/// Runs services as child tasks and stops them in reverse start order (swift-service-lifecycle's shape).
///
/// A graceful shutdown begins on ``triggerGracefulShutdown()``, on a signal of ``Settings/signals``, or when a
/// service ends unexpectedly (returns or throws before it was asked to stop; logged). The services are then
/// cancelled one at a time, last started first, each awaited before the next: the HTTP listener stops
/// accepting before the dispatcher that sends what it took in. When the shutdown takes longer than
/// ``Settings/shutdownTimeout``, or a second signal arrives (not the first one delivered again,
/// ``StopSignalTurns``), the group escalates (``Escalation``).
public final class ServiceGroup: Sendable {
    /// What the group does when a graceful shutdown takes too long.
    public enum Escalation: Sendable {
        /// Cancels every service still running at once and waits for them; ``run()`` then throws
        /// `.shutdownTimedOut`.
        case cancelRemaining
        /// Logs a critical line and ends the process with this status: what is unfinished stays undone (for
        /// the relay: in the outbox, sent on the next start).
        case exit(Int32)
    }

    /// How the group stops.
    public struct Settings: Sendable {
        /// Caught signals that begin a graceful shutdown; nil watches none.
        public var signals: Signals?
        /// How long a graceful shutdown may take before ``escalation``; nil waits as long as it takes.
        public var shutdownTimeout: Duration?
        public var escalation: Escalation

        public init(
            signals: Signals? = nil,
            shutdownTimeout: Duration? = nil,
            escalation: Escalation = .cancelRemaining
        ) {
            self.signals = signals
            self.shutdownTimeout = shutdownTimeout
            self.escalation = escalation
        }
    }

    /// A service and the name its log lines give it.
    public struct Entry: Sendable {
        public var name: String
        public var service: any Service

        public init(_ name: String, _ service: any Service) {
            self.name = name
            self.service = service
        }
    }

    private let entries: [Entry]
    private let settings: Settings
    private let logger: Logger
    /// One per entry: asks that service to stop.
    private let stops: [OneShotEvent]
    /// The graceful shutdown was asked for.
    private let shutdownAsked = OneShotEvent()
    /// The escalation was asked for (a second signal).
    private let escalationAsked = OneShotEvent()
    /// What each signal caught asks for.
    private let signalTurns = Mutex(StopSignalTurns())

    /// - Parameter services: in start order; stopped in the reverse order.
    public init(services: [Entry], settings: Settings = .init(), logger: Logger) {
        entries = services
        self.settings = settings
        self.logger = logger
        stops = services.map { _ in OneShotEvent() }
    }

    /// Begins a graceful shutdown; returns at once (``run()`` returns when it has finished).
    public func triggerGracefulShutdown() { shutdownAsked.signal() }

    /// Runs every service until a graceful shutdown has stopped them all.
    /// - Throws: ``ServiceGroupError`` `.serviceEnded` or `.serviceFailed` (the first service that ended
    ///   unexpectedly; the others were stopped), `.shutdownTimedOut` after ``Escalation/cancelRemaining``.
    public func run() async throws {
        if let signals = settings.signals {
            let logger = self.logger
            let shutdownAsked = self.shutdownAsked
            let escalationAsked = self.escalationAsked
            let timeout = settings.shutdownTimeout
            signals.setHandler { [weak self] number in
                guard let self else { return }
                let now = ContinuousClock.now
                switch signalTurns.withLock({ $0.verdict(at: now, shuttingDown: shutdownAsked.hasHappened) }) {
                case .begin:
                    var metadata: Logger.Metadata = ["signal": number]
                    if let timeout { metadata["shutdown.timeout_seconds"] = timeout.components.seconds }
                    logger.notice("stopping", metadata)
                    shutdownAsked.signal()
                case .repeated:
                    logger.info("signal repeated: taken as the one that began the shutdown", ["signal": number])
                case .escalate:
                    logger.warning("signal during shutdown: stopping at once", ["signal": number])
                    escalationAsked.signal()
                }
            }
        }
        try await withThrowingTaskGroup(of: Event.self) { group in
            for (index, entry) in entries.enumerated() {
                let stop = stops[index]
                group.addTask { await Self.runService(entry.service, index: index, stop: stop) }
            }
            let shutdownAsked = self.shutdownAsked
            group.addTask {
                await shutdownAsked.wait()
                return .shutdownAsked
            }
            var run = Run()
            // Running: until the shutdown is asked for or a service ends.
            while !run.stopping, let event = try await group.next() {
                record(event, in: &run)
            }
            try await shutDown(&run, group: &group)
            group.cancelAll()
            if let failure = run.failure { throw failure }
        }
    }

    /// What a child task reports.
    private enum Event: Sendable {
        case ended(index: Int, error: (any Error)?)
        case shutdownAsked
        case escalate(reason: String)
        case idle
    }

    /// The group's view of its services.
    private struct Run {
        var ended: Set<Int> = []
        var stopping = false
        var failure: ServiceGroupError?
    }

    private static func runService(_ service: any Service, index: Int, stop: OneShotEvent) async -> Event {
        // The service and the wait for its stop side by side: the stop cancels the service's task alone.
        await withTaskGroup(of: Event?.self) { inner in
            inner.addTask {
                do {
                    try await service.run()
                    return .ended(index: index, error: nil)
                } catch {
                    return .ended(index: index, error: error)
                }
            }
            inner.addTask {
                await stop.wait()
                return nil
            }
            var outcome: Event = .ended(index: index, error: nil)
            while let event = await inner.next() {
                if let event {
                    outcome = event
                    inner.cancelAll()  // the stop's wait, when the service ended first
                } else {
                    inner.cancelAll()  // the stop: cancels the service, whose end is the next event
                }
            }
            return outcome
        }
    }

    private func record(_ event: Event, in run: inout Run) {
        switch event {
        case .ended(let index, let error):
            run.ended.insert(index)
            let name = entries[index].name
            // Asked to stop, or the task running the group was cancelled (which cancels every service).
            if stops[index].hasHappened || Task.isCancelled {
                if let error, !(error is CancellationError) {
                    logger.warning("service failed while stopping", ["service": name, "error": "\(error)"])
                }
                return
            }
            // Ended before it was asked to: unexpected, whatever the group was doing.
            if let error {
                logger.error("service failed", ["service": name, "error": "\(error)"])
                run.failure =
                    run.failure
                    ?? ServiceGroupError(
                        code: .serviceFailed,
                        service: name,
                        message: "service \(name) failed: \(error)",
                        cause: error
                    )
            } else {
                logger.error("service ended unexpectedly", ["service": name])
                run.failure =
                    run.failure
                    ?? ServiceGroupError(code: .serviceEnded, service: name, message: "service \(name) ended")
            }
            run.stopping = true
            shutdownAsked.signal()  // so a signal now escalates
        case .shutdownAsked:
            run.stopping = true
        case .escalate, .idle:
            break
        }
    }

    /// Stops the services still running, last started first, within the timeout.
    private func shutDown(_ run: inout Run, group: inout ThrowingTaskGroup<Event, any Error>) async throws {
        if let timeout = settings.shutdownTimeout {
            group.addTask {
                do { try await Task.sleep(for: timeout) } catch { return .idle }
                return .escalate(reason: "timeout")
            }
        }
        let escalationAsked = self.escalationAsked
        group.addTask {
            await escalationAsked.wait()
            return escalationAsked.hasHappened ? .escalate(reason: "signal") : .idle
        }
        for index in entries.indices.reversed() where !run.ended.contains(index) {
            stops[index].signal()
            while !run.ended.contains(index), let event = try await group.next() {
                if case .escalate(let reason) = event {
                    try await escalate(&run, reason: reason, group: &group)
                    return
                }
                record(event, in: &run)
            }
        }
    }

    /// Ends the shutdown now, as ``Settings/escalation`` says.
    private func escalate(
        _ run: inout Run,
        reason: String,
        group: inout ThrowingTaskGroup<Event, any Error>
    )
        async throws
    {
        let running = entries.indices.filter { !run.ended.contains($0) }.map { entries[$0].name }
        let names = running.joined(separator: ",")
        switch settings.escalation {
        case .exit(let status):
            logger.critical(
                "shutdown bound reached; stopping now with what is unfinished left undone",
                ["reason": reason, "services.running": names, "exit.status": Int(status)]
            )
            exit(status)
        case .cancelRemaining:
            logger.error(
                "shutdown bound reached; cancelling the services still running",
                ["reason": reason, "services.running": names]
            )
            for index in entries.indices { stops[index].signal() }
            run.failure = ServiceGroupError(
                code: .shutdownTimedOut,
                service: names,
                message: "shutdown bound reached with \(names) still running"
            )
            while run.ended.count < entries.count, let event = try await group.next() {
                if case .ended(let index, _) = event { run.ended.insert(index) }
            }
        }
    }
}
