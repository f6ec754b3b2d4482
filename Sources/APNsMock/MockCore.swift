import Foundation
import MockHTTP2
import RelayCore
import Synchronization

/// State shared between the public ``MockAPNsServer`` and its event-loop thread: the script with its
/// counters, and the record. Every mutable field sits behind a Mutex.
final class MockCore: Sendable {
    let configuration: MockAPNsConfiguration
    private let state: Mutex<State>
    /// Bumped (under the state lock) whenever the script changes, so connections re-read their faults.
    let scriptVersion = Atomic<Int>(0)
    /// The answered requests, and the waiters for them.
    let log: RequestLog<RecordedRequest>

    private struct State {
        var script: MockScript
        /// Times each device rule (by index) has been applied since the script was set.
        var deviceRuleUses: [Int]
        /// How many `"next"` connection rules were already bound to a connection.
        var nextRulesBound = 0
        var acceptedConnections = 0

        init(script: MockScript) {
            self.script = script
            deviceRuleUses = Array(repeating: 0, count: script.devices.count)
        }
    }

    /// What a device rule says to do with a valid request.
    struct DeviceAnswer {
        var status: Int?
        var reason: String?
        var timestamp: Int64?
        var delayMs: Int
        var neverAnswer: Bool
    }

    /// The faults bound to one connection, merged from every rule that selects it.
    struct ConnectionFaults {
        var goAway: MockScript.ConnectionRule.GoAway?
        var streamLimit: MockScript.ConnectionRule.StreamLimit?
        var refuse: Set<Int> = []
        var dropAfterRequests: Int?
    }

    init(configuration: MockAPNsConfiguration) {
        self.configuration = configuration
        state = Mutex(State(script: configuration.script))
        log = RequestLog(keepInMemory: configuration.recordInMemory, limit: configuration.maxRecordedRequests) {
            waited,
            count,
            total in
            MockAPNsError(.timeout, "waited \(waited) for \(count) requests; \(total) recorded")
        }
    }

    var script: MockScript {
        get { state.withLock { $0.script } }
        set {
            state.withLock {
                $0 = Self.replacingScript($0, with: newValue)
                scriptVersion.add(1, ordering: .sequentiallyConsistent)
            }
        }
    }

    func updateScript(_ body: (inout MockScript) -> Void) {
        state.withLock {
            var script = $0.script
            body(&script)
            $0 = Self.replacingScript($0, with: script)
            scriptVersion.add(1, ordering: .sequentiallyConsistent)
        }
    }

    private static func replacingScript(_ old: State, with script: MockScript) -> State {
        var new = old
        new.script = script
        new.deviceRuleUses = Array(repeating: 0, count: script.devices.count)
        new.nextRulesBound = 0
        return new
    }

    /// The scripted answer for a valid request to `token` (lowercase hex), consuming one use of the rule.
    func deviceAnswer(token: String) -> DeviceAnswer? {
        state.withLock { state in
            guard !state.script.devices.isEmpty else { return nil }
            for (index, rule) in state.script.devices.enumerated()
            where rule.token == "*" || rule.token.lowercased() == token {
                if let count = rule.count, state.deviceRuleUses[index] >= count { continue }
                state.deviceRuleUses[index] += 1
                return DeviceAnswer(
                    status: rule.status,
                    reason: rule.reason,
                    timestamp: rule.timestamp,
                    delayMs: max(0, rule.delayMs ?? 0),
                    neverAnswer: rule.neverAnswer ?? false
                )
            }
            return nil
        }
    }

    /// Counts a newly accepted connection and returns the `"next"` rule it takes, if any.
    func acceptConnection() -> MockScript.ConnectionRule? {
        state.withLock { state in
            state.acceptedConnections += 1
            let nextRules = state.script.connections.filter { $0.connection == .next }
            guard state.nextRulesBound < nextRules.count else { return nil }
            state.nextRulesBound += 1
            return nextRules[state.nextRulesBound - 1]
        }
    }

    /// The faults for a connection under the current script: its `"all"` and index rules, then the `"next"`
    /// rule it took when accepted; later rules override earlier ones, refused ordinals add up. Also returns the
    /// script version they come from.
    func faults(connectionId: Int, nextRule: MockScript.ConnectionRule?) -> (ConnectionFaults, Int) {
        state.withLock { state in
            var faults = ConnectionFaults()
            let rules = state.script.connections.filter {
                $0.connection == .all || $0.connection == .index(connectionId)
            }
            for rule in rules + (nextRule.map { [$0] } ?? []) {
                if let goAway = rule.goAway { faults.goAway = goAway }
                if let limit = rule.maxConcurrentStreams { faults.streamLimit = limit }
                faults.refuse.formUnion(rule.refuseRequests ?? [])
                if let drop = rule.dropAfterRequests { faults.dropAfterRequests = drop }
            }
            return (faults, scriptVersion.load(ordering: .sequentiallyConsistent))
        }
    }

    var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
}
