import Foundation
import RelayCore
import RelayStore

/// Decides, right after a claim, which claimed deliveries go as wake pushes (``RelayCore/PushMode/wake``):
/// those the app's ``RelayCore/WakePolicy`` asks to wake and whose devices' hourly budgets give one
/// (``RelayStore/Store/takeWakePushes(appId:tokens:perHour:at:)``, one set-based store call for the whole
/// claim). Every other delivery stays an alert, so nothing goes unannounced: over the budget, for a message
/// without a message id, and when the store cannot be asked.
///
/// A retried wake push asks again at its next claim: each attempt counts against the budget.
struct WakeAssigner: Sendable {
    /// By app id; an app without one sends alerts only.
    let policies: [String: WakePolicy]
    let store: any Store
    let time: any TimeSource
    let metrics: RelayMetrics
    let logger: Logger

    /// `jobs` (one app's claim), those given a wake push with ``RelayCore/DeliveryJob/mode`` `.wake`.
    func assign(_ jobs: [DeliveryJob], appId: String) async -> [DeliveryJob] {
        guard let policy = policies[appId] else { return jobs }
        let asking = jobs.indices.filter { policy.asksToWake(jobs[$0]) }
        guard !asking.isEmpty else { return jobs }
        let given: [Bool]
        do {
            given = try await store.takeWakePushes(
                appId: appId,
                tokens: asking.map { jobs[$0].token.value },
                perHour: policy.budgetPerHour,
                at: time.now
            )
        } catch {
            logger.error("taking wake budgets failed; sending alerts", ["error": "\(error)", "app.id": appId])
            return jobs
        }
        var assigned = jobs
        for (index, wakes) in zip(asking, given) {
            metrics.recordWakeDecision(wakes ? "wake" : "over_budget", app: appId, platform: jobs[index].token.platform)
            if wakes { assigned[index].mode = .wake }
        }
        return assigned
    }
}
