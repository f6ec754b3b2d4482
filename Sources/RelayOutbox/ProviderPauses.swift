import Foundation
import RelayCore
import Synchronization

/// The sends paused, by (app, platform, scope), because a push service refused the relay's credentials for
/// an app (APNs InvalidProviderToken, MissingProviderToken, BadCertificate, BadCertificateEnvironment; FCM
/// THIRD_PARTY_AUTH_ERROR, 401, 403: ``RelayCore/PushResult/credentialsRefused(status:reason:)``) or did not
/// answer at all (APNs and FCM: ``RelayCore/PushResult/unreachable(reason:)``).
///
/// Neither is about a device, so it pauses every send of its key; keyed by the token's scope
/// (``RelayCore/PushToken/scope``: APNs' environment, which a device chooses, so one user's sandbox device
/// cannot pause an app's production sends; FCM and Web Push have none). While paused, deliveries are held
/// back unsent and spend no attempt; one probe delivery is sent per back-off step (``Cause/firstStep``,
/// doubling up to ``longestStep``), and the first answer that is not a refusal resumes the sends. An outage
/// of the push service thus fails nothing however long it lasts: held deliveries end at their
/// notification's expiry (`failed`, `Expired`). The pause lives in this relay's memory: each relay on a
/// store finds and probes it by itself, and ends it unprobed once no delivery of its key is held here
/// (``endUnwaited(now:)``).
public final class ProviderPauses: Sendable {
    /// What is paused: an app's sends on one platform to one scope of its push service.
    public struct Key: Hashable, Sendable {
        public var appId: String
        public var platform: Platform
        /// The part of the push service (``RelayCore/PushToken/scope``); nil for a service with one.
        public var scope: String?

        public init(appId: String, platform: Platform, scope: String?) {
            self.appId = appId
            self.platform = platform
            self.scope = scope
        }

        /// The key a delivery is sent under.
        init(_ job: DeliveryJob) {
            self.init(appId: job.appId, platform: job.token.platform, scope: job.token.scope)
        }
    }

    /// What to do with a delivery now.
    enum Admission: Equatable {
        /// Not paused: send it.
        case send
        /// Paused, and its step has passed: send it as the one probe.
        case probe
        /// Paused: keep it unsent until then.
        case hold(until: Date)
    }

    /// Why a key's sends are paused.
    enum Cause: Sendable, Equatable {
        /// The service refused the relay's credentials.
        case credentials
        /// The service did not answer.
        case unreachable

        /// The first wait before a probe: a refused key is mended by an operator, in minutes; a service that
        /// did not answer once (a connection reset) may answer the next request, so its probe goes a second
        /// later.
        var firstStep: Duration {
            switch self {
            case .credentials: .seconds(5)
            case .unreachable: .seconds(1)
            }
        }
    }

    private struct Pause {
        var cause: Cause
        var reason: String
        var step: Duration
        var nextProbe: Date
        var probing: Bool
    }

    /// The longest wait between probes.
    public static let longestStep = Duration.seconds(300)
    /// How long a delivery claimed while the probe is out is held: about as long as a probe's answer takes,
    /// and no shorter, since every held delivery of a large room comes due again each time (a claim and a
    /// write apiece).
    public static let probingHold = Duration.seconds(5)
    /// How long past its due probe a pause waits for a delivery to probe with (one held here comes due then,
    /// and is claimed within a poll interval) before ``endUnwaited(now:)`` ends it.
    public static let unwaitedGrace = Duration.seconds(30)

    private let paused = Mutex<[Key: Pause]>([:])
    /// Where `pushrelay_provider_paused` and `pushrelay_provider_unreachable` are set (1 while a pause of
    /// their cause lasts, else 0); nil reports nothing.
    private let metrics: RelayMetrics?
    private let logger: Logger

    public init(metrics: RelayMetrics?, logger: Logger) {
        self.metrics = metrics
        self.logger = logger
    }

    /// Sets the gauges of `key` for a pause of `cause` (nil: none); a service with one scope is labelled
    /// `none`.
    private func report(_ key: Key, _ cause: Cause?) {
        metrics?.setProviderPaused(cause == .credentials, app: key.appId, platform: key.platform, scope: key.scope)
        metrics?.setProviderUnreachable(
            cause == .unreachable,
            app: key.appId,
            platform: key.platform,
            scope: key.scope
        )
    }

    /// Whether a delivery under `key` is sent now, sent as the probe, or held.
    func admit(_ key: Key, now: Date) -> Admission {
        paused.withLock { paused in
            guard var pause = paused[key] else { return .send }
            // Only until the probe's answer may have come: a probe accepted resumes the others soon after.
            if pause.probing { return .hold(until: now + Self.probingHold.timeInterval) }
            guard now >= pause.nextProbe else { return .hold(until: pause.nextProbe) }
            pause.probing = true
            paused[key] = pause
            return .probe
        }
    }

    /// The service refused the credentials of `key`, or did not answer (`cause`): pauses it (a probe that
    /// fails so doubles the step, and its cause is the pause's from then on) and returns when the next probe
    /// is due, the time to hold the failed delivery until.
    func failed(_ key: Key, cause: Cause, reason: String, probe: Bool, now: Date) -> Date {
        let (until, started) = paused.withLock { paused -> (Date, Cause?) in
            guard var pause = paused[key] else {
                let pause = Pause(
                    cause: cause,
                    reason: reason,
                    step: cause.firstStep,
                    nextProbe: now + cause.firstStep.timeInterval,
                    probing: false
                )
                paused[key] = pause
                return (pause.nextProbe, cause)
            }
            guard probe else { return (pause.nextProbe, nil) }
            let changed = pause.cause != cause
            pause.step = min(pause.step * 2, Self.longestStep)
            pause.nextProbe = now + pause.step.timeInterval
            pause.probing = false
            pause.cause = cause
            pause.reason = reason
            paused[key] = pause
            return (pause.nextProbe, changed ? cause : nil)
        }
        if let started {
            report(key, started)
            let metadata = Self.metadata(key).merging(["push.reason": reason]) { _, new in new }
            switch started {
            case .credentials: logger.error("push service refused the relay's credentials; sends paused", metadata)
            case .unreachable: logger.error("push service does not answer; sends paused", metadata)
            }
        }
        return until
    }

    /// The service answered a delivery of `key` otherwise than by refusing its credentials: a pause ends.
    func answered(_ key: Key) {
        let ended = paused.withLock { $0.removeValue(forKey: key) }
        guard let ended else { return }
        report(key, nil)
        let metadata = Self.metadata(key).merging(["push.reason": ended.reason]) { _, new in new }
        switch ended.cause {
        case .credentials: logger.notice("push service accepts the relay's credentials again; sends resume", metadata)
        case .unreachable: logger.notice("push service answers again; sends resume", metadata)
        }
    }

    /// Ends every pause whose probe has been due for ``unwaitedGrace`` with no delivery taking it: this relay
    /// holds none of its key's deliveries any more (another relay sent them, they expired or were cancelled),
    /// so nothing would ever probe it, and its gauge and `/readyz` check would say paused after the service
    /// came back. The next send of its key finds out afresh.
    public func endUnwaited(now: Date) {
        let ended = paused.withLock { paused -> [(Key, Pause)] in
            let unwaited = paused.filter {
                !$0.value.probing && now >= $0.value.nextProbe + Self.unwaitedGrace.timeInterval
            }
            for key in unwaited.keys { paused.removeValue(forKey: key) }
            return unwaited.map { ($0.key, $0.value) }
        }
        for (key, pause) in ended {
            report(key, nil)
            logger.notice(
                "no delivery waits on the paused sends here; pause ended",
                Self.metadata(key).merging(["push.reason": pause.reason]) { _, new in new }
            )
        }
    }

    /// The probe of `key` got no answer (no connection, a timeout): the next one goes a step later.
    func probeUnanswered(_ key: Key, now: Date) {
        paused.withLock { paused in
            guard var pause = paused[key] else { return }
            pause.probing = false
            pause.nextProbe = now + pause.step.timeInterval
            paused[key] = pause
        }
    }

    /// Whether `key` is paused.
    public func isPaused(_ key: Key) -> Bool { paused.withLock { $0[key] != nil } }

    /// A `/readyz` check per app with a paused key, `provider:<appId>`:
    /// `paused (InvalidProviderToken: ios production)`, the keys joined by `; `.
    public func checks() -> [String: String] {
        let now = paused.withLock { $0 }
        var byApp: [String: [String]] = [:]
        for (key, pause) in now {
            // APNs names its environment; a service with one scope names none.
            let scope = key.scope.map { " \($0)" } ?? ""
            byApp[key.appId, default: []].append("\(pause.reason): \(key.platform.rawValue)\(scope)")
        }
        return byApp.mapValues { "paused (" + $0.sorted().joined(separator: "; ") + ")" }
            .reduce(into: [:]) { $0["provider:\($1.key)"] = $1.value }
    }

    private static func metadata(_ key: Key) -> Logger.Metadata {
        var metadata: Logger.Metadata = ["app.id": key.appId, "device.platform": key.platform.rawValue]
        if let scope = key.scope { metadata["push.scope"] = "\(scope)" }
        return metadata
    }
}
