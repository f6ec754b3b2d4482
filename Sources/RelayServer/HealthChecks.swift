import Synchronization

/// Named health checks that parts of the relay other than ``Readiness``'s own probes report into, for
/// `GET /readyz` on the admin listener: a part sets its check (`ok` or a short reason, never a secret) when
/// its state changes, and a scrape reads them without waiting on anything. A name holds an app id only after
/// a colon (`provider:<appId>:ios:production`), like the endpoint checks; such checks are not shown on the
/// API's listener. These checks never make the relay unready: only storage does.
public final class HealthChecks: Sendable {
    private let checks = Mutex<[String: String]>([:])

    public init() {}

    /// Sets check `name` to `value` (`ok` or a short reason).
    public func set(_ name: String, _ value: String) {
        checks.withLock { $0[name] = value }
    }

    /// Takes check `name` out of the report.
    public func remove(_ name: String) {
        _ = checks.withLock { $0.removeValue(forKey: name) }
    }

    /// Every check set, by name.
    public var snapshot: [String: String] { checks.withLock { $0 } }
}
