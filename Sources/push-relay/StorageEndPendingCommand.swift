import Foundation
import RelayCLI
import RelayCore
import RelayStore

/// `push-relay storage end-pending --app ID [--config FILE | --store LOCATION]`: ends the pending work of an app taken out of
/// every relay's configuration, which no relay claims again (``RelayStore/Store/endPendingWork(appId:at:)``).
/// Prints one JSON line: the app and what was ended of each kind. Exit status 2 for a mistake in the command,
/// 1 when the store cannot be opened (a SQLite path with no store: none is made) or written, when a relay
/// still serves the app (its mark, ``RelayStore/ServedApps``, is recent, or it holds a live lease on the app's
/// deliveries; nothing is ended), or when the store knows nothing of the app (``RelayStore/EndedWork/appKnown``:
/// a mistyped id, which had nothing to end).
enum StorageEndPendingCommand {
    static let summary = """
        Ends the pending work of an app taken out of every relay's configuration: its pending deliveries
          end failed (reason AppRemoved), its badge updates are no longer due, its queued feedback is deleted.
        """

    static func run(_ arguments: Arguments) async throws -> Int32 {
        let (store, app, _) = try await StorageLocation.openAppStore(arguments)
        let now = Date()
        // Every relay marks the apps of its configuration served, every few seconds.
        if let mark = try await store.lastPeriodicRun(job: ServedApps.job(app)),
            ServedApps.isServed(lastMark: mark, now: now)
        {
            FileHandle.standardError.writeLine(
                "push-relay storage: a relay served app '\(app)' \(Int(now.timeIntervalSince(mark).rounded())) s ago: "
                    + "take the app out of every relay's configuration, then run this again once none has served it "
                    + "for \(Int(ServedApps.servedWithin.timeInterval)) s; nothing was ended"
            )
            return 1
        }
        // A relay that holds a live lease on the app's deliveries is sending them: it still serves the app.
        if let leased = try await store.outboxCounts(now: now)[app]?.leased, leased > 0 {
            FileHandle.standardError.writeLine(
                "push-relay storage: \(leased) pending deliveries of app '\(app)' are leased by a relay sending them: "
                    + "take the app out of every relay's configuration, then run this again once their leases end "
                    + "(delivery.leaseSeconds); nothing was ended"
            )
            return 1
        }
        let ended = try await store.endPendingWork(appId: app, at: now)
        let endedNothing = ended.deliveries == 0 && ended.badgeUpdates == 0 && ended.feedback == 0
        guard ended.appKnown || !endedNothing else {
            FileHandle.standardError.writeLine(
                "push-relay storage: the store holds no device, room member or pending work of app '\(app)': "
                    + "is the app id right? nothing was ended"
            )
            return 1
        }
        let report: [String: Any] = [
            "app": app, "deliveries": ended.deliveries, "badgeUpdates": ended.badgeUpdates,
            "feedback": ended.feedback,
        ]
        let line = try JSONSerialization.data(withJSONObject: report, options: [.sortedKeys])
        say(String(decoding: line, as: UTF8.self))
        return 0
    }
}
