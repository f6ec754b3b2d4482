import Foundation
import RelayCore
import RelayStore

/// The info line per notification once none of its deliveries is pending any more (`notification done`,
/// with its deliveries counted by outcome), instead of a line per push (those are at `debug`).
///
/// Found by batched counts: after each batch of results is recorded, ONE store call counts the deliveries
/// of the notifications a final result of the batch belongs to, and those with none pending are logged.
/// A notification whose last deliveries end on two relays at once may be logged by both.
struct NotificationDoneLog: Sendable {
    let store: any Store
    let logger: Logger

    /// Logs each notification of `ended` that is done; nothing is asked of the store when info lines are
    /// not logged.
    func report(_ ended: [ResultBuffer.Ended]) async {
        guard !ended.isEmpty, Logger.Level.info >= logger.level else { return }
        let apps = Dictionary(ended.map { ($0.notificationId, $0.appId) }, uniquingKeysWith: { first, _ in first })
        let finished: [UUID: DeliveryCounts]
        do {
            finished = try await store.finishedNotificationCounts(Array(apps.keys))
        } catch {
            logger.warning("counting the deliveries of finished notifications failed", ["error": "\(error)"])
            return
        }
        for (id, counts) in finished.sorted(by: { $0.key.lowercasedString < $1.key.lowercasedString }) {
            logger.info(
                "notification done",
                [
                    "app.id": apps[id] ?? "", "notification.id": id.lowercasedString,
                    "deliveries.sent": counts.sent, "deliveries.failed": counts.failed,
                    "deliveries.retired": counts.retired, "deliveries.cancelled": counts.cancelled,
                ]
            )
        }
    }
}
