import Synchronization

/// A mock's script with its counters, shared by the public ``MockServer`` and its event-loop thread. Every
/// mutable field sits behind one Mutex.
package final class MockState<Script: Sendable>: Sendable {
    private struct State {
        var script: Script
        /// Times each device rule (by index) has been applied since the script was set.
        var ruleUses: [Int: Int] = [:]
        /// Connections accepted since the script was set: the next one takes the `"next"` rule of this index.
        var acceptedSinceScript = 0
        var acceptedConnections = 0
    }

    private let state: Mutex<State>
    /// Bumped (under the state lock) whenever the script changes, so connections re-read their faults.
    private let version = Atomic<Int>(0)

    package init(script: Script) {
        state = Mutex(State(script: script))
    }

    /// The script in force; setting it replaces it and resets its counters.
    package var script: Script {
        get { state.withLock { $0.script } }
        set { update { $0 = newValue } }
    }

    /// Changes the script in place, atomically; counters restart, as for setting ``script``.
    package func update(_ body: (inout Script) -> Void) {
        state.withLock {
            body(&$0.script)
            $0.ruleUses = [:]
            $0.acceptedSinceScript = 0
            version.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// The version of the script in force; it changes with every change of the script.
    package var scriptVersion: Int { version.load(ordering: .sequentiallyConsistent) }

    /// The script in force with its version.
    package var versionedScript: (script: Script, version: Int) {
        state.withLock { ($0.script, version.load(ordering: .sequentiallyConsistent)) }
    }

    /// Counts a newly accepted connection; returns the script in force and how many connections were accepted
    /// before it since that script was set.
    package func acceptConnection() -> (script: Script, ordinal: Int) {
        state.withLock { state in
            state.acceptedConnections += 1
            state.acceptedSinceScript += 1
            return (state.script, state.acceptedSinceScript - 1)
        }
    }

    /// How many TCP connections were accepted since start.
    package var acceptedConnections: Int { state.withLock { $0.acceptedConnections } }
}

extension MockState where Script: MockScripted {
    /// The first rule for a valid request to `token` that is not used up, consuming one use of it.
    package func rule(for token: String) -> Script.Rule? {
        state.withLock { state in
            let devices = state.script.devices
            for index in devices.indices where devices[index].applies(to: token) {
                if let count = devices[index].count, state.ruleUses[index, default: 0] >= count { continue }
                state.ruleUses[index, default: 0] += 1
                return devices[index]
            }
            return nil
        }
    }
}
