import Foundation
import RelayCore
import Testing

@testable import RelayOutbox

/// The rules of ``ProviderPauses`` on a clock of its own: a refusal pauses its (app, platform,
/// environment) alone, one probe goes per step, a refused probe doubles the step up to five minutes, and
/// the first answer resumes.
@Suite struct ProviderPausesTests {
    static let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    static let sandbox = ProviderPauses.Key(appId: "app0", platform: .ios, scope: "sandbox")
    static let production = ProviderPauses.Key(appId: "app0", platform: .ios, scope: "production")

    func pauses() -> ProviderPauses {
        ProviderPauses(metrics: nil, logger: .disabled())
    }

    @Test func aRefusalPausesItsEnvironmentAloneAndOneProbeGoesPerStep() {
        let pauses = pauses()
        #expect(pauses.admit(Self.sandbox, now: Self.t0) == .send)
        let next = pauses.failed(
            Self.sandbox,
            cause: .credentials,
            reason: "InvalidProviderToken",
            probe: false,
            now: Self.t0
        )
        #expect(next == Self.t0 + 5)
        // In-flight refusals after the first change nothing.
        #expect(
            pauses.failed(
                Self.sandbox,
                cause: .credentials,
                reason: "InvalidProviderToken",
                probe: false,
                now: Self.t0 + 1
            ) == next
        )
        #expect(pauses.admit(Self.production, now: Self.t0 + 1) == .send)
        #expect(pauses.admit(Self.sandbox, now: Self.t0 + 1) == .hold(until: next))
        #expect(pauses.admit(Self.sandbox, now: next) == .probe)
        // While the probe is out, the others wait a step more.
        #expect(pauses.admit(Self.sandbox, now: next) == .hold(until: next + 5))
        #expect(pauses.checks() == ["provider:app0": "paused (InvalidProviderToken: ios sandbox)"])
    }

    @Test func aRefusedProbeDoublesTheStepUpToFiveMinutes() {
        let pauses = pauses()
        var now = Self.t0
        var next = pauses.failed(
            Self.sandbox,
            cause: .credentials,
            reason: "InvalidProviderToken",
            probe: false,
            now: now
        )
        var steps: [TimeInterval] = []
        for _ in 0..<8 {
            now = next
            #expect(pauses.admit(Self.sandbox, now: now) == .probe)
            next = pauses.failed(
                Self.sandbox,
                cause: .credentials,
                reason: "InvalidProviderToken",
                probe: true,
                now: now
            )
            steps.append(next.timeIntervalSince(now))
        }
        #expect(steps == [10, 20, 40, 80, 160, 300, 300, 300])
    }

    @Test func anAnswerResumesAndAProbeWithoutAnswerWaitsAStep() {
        let pauses = pauses()
        let next = pauses.failed(
            Self.sandbox,
            cause: .credentials,
            reason: "BadCertificate",
            probe: false,
            now: Self.t0
        )
        #expect(pauses.admit(Self.sandbox, now: next) == .probe)
        pauses.probeUnanswered(Self.sandbox, now: next)
        #expect(pauses.admit(Self.sandbox, now: next + 1) == .hold(until: next + 5))
        #expect(pauses.admit(Self.sandbox, now: next + 5) == .probe)
        pauses.answered(Self.sandbox)
        #expect(pauses.admit(Self.sandbox, now: next + 5) == .send)
        #expect(pauses.checks().isEmpty)
    }

    /// A service that does not answer pauses its key as a refusal does, under its own gauge; a probe that
    /// then fails otherwise makes that the pause's cause, and an answer ends it.
    @Test func anUnansweredServicePausesUnderItsOwnGauge() {
        let metrics = RelayMetrics(appIds: ["app0"])
        let pauses = ProviderPauses(metrics: metrics, logger: .disabled())
        let labels = #"{app="app0",platform="ios",environment="sandbox"}"#
        let (paused, unreachable) = ("pushrelay_provider_paused\(labels)", "pushrelay_provider_unreachable\(labels)")
        #expect(metrics.render().contains("\(unreachable) 0"))
        let next = pauses.failed(Self.sandbox, cause: .unreachable, reason: "Unreachable", probe: false, now: Self.t0)
        // A second first: one reset need not hold the sends for long.
        #expect(next == Self.t0 + 1)
        #expect(pauses.admit(Self.sandbox, now: Self.t0 + 0.5) == .hold(until: next))
        #expect(metrics.render().contains("\(unreachable) 1") && metrics.render().contains("\(paused) 0"))
        #expect(pauses.checks() == ["provider:app0": "paused (Unreachable: ios sandbox)"])
        #expect(pauses.admit(Self.sandbox, now: next) == .probe)
        // While the probe is out the others wait as long as its answer may take, not a second each time.
        #expect(pauses.admit(Self.sandbox, now: next) == .hold(until: next + 5))
        let later = pauses.failed(
            Self.sandbox,
            cause: .credentials,
            reason: "InvalidProviderToken",
            probe: true,
            now: next
        )
        #expect(later == next + 2)
        #expect(metrics.render().contains("\(unreachable) 0") && metrics.render().contains("\(paused) 1"))
        pauses.answered(Self.sandbox)
        #expect(metrics.render().contains("\(unreachable) 0") && metrics.render().contains("\(paused) 0"))
        #expect(pauses.admit(Self.sandbox, now: later) == .send)
    }

    /// A pause whose probe no delivery took (none of its key is held here any more) ends once its probe has
    /// been due for the grace; one whose probe is out, or not due yet, stays.
    @Test func aPauseNoDeliveryWaitsOnEnds() {
        let metrics = RelayMetrics(appIds: ["app0"])
        let pauses = ProviderPauses(metrics: metrics, logger: .disabled())
        let gauge = #"pushrelay_provider_unreachable{app="app0",platform="ios",environment="sandbox"}"#
        let next = pauses.failed(Self.sandbox, cause: .unreachable, reason: "Unreachable", probe: false, now: Self.t0)
        _ = pauses.failed(Self.production, cause: .unreachable, reason: "Unreachable", probe: false, now: Self.t0)
        let grace = ProviderPauses.unwaitedGrace.timeInterval
        #expect(pauses.admit(Self.production, now: next) == .probe)
        pauses.endUnwaited(now: next + grace - 1)
        #expect(pauses.isPaused(Self.sandbox) && metrics.render().contains("\(gauge) 1"))
        pauses.endUnwaited(now: next + grace)
        #expect(!pauses.isPaused(Self.sandbox) && metrics.render().contains("\(gauge) 0"))
        // The production key's probe is out: it stays until its answer.
        #expect(pauses.isPaused(Self.production))
        #expect(pauses.admit(Self.sandbox, now: next + grace) == .send)
    }

    /// `pushrelay_provider_paused` reads 1 for the paused key from the refusal to the answer, the others 0;
    /// Android has one environment.
    @Test func theGaugeFollowsThePause() throws {
        let metrics = RelayMetrics(appIds: ["app0"])
        let pauses = ProviderPauses(metrics: metrics, logger: .disabled())
        let production = #"pushrelay_provider_paused{app="app0",platform="ios",environment="production"}"#
        let sandbox = #"pushrelay_provider_paused{app="app0",platform="ios",environment="sandbox"}"#
        #expect(metrics.render().contains("\(production) 0"))
        _ = pauses.failed(
            Self.production,
            cause: .credentials,
            reason: "InvalidProviderToken",
            probe: false,
            now: Self.t0
        )
        #expect(metrics.render().contains("\(production) 1") && metrics.render().contains("\(sandbox) 0"))
        pauses.answered(Self.production)
        #expect(metrics.render().contains("\(production) 0"))
        let android = try PushToken(parsing: String(repeating: "f", count: 40), platform: .android)
        #expect(android.scope == nil && PushToken.scopes(of: .android) == [nil])
    }
}
