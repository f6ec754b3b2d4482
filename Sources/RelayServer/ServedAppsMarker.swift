import RelayCore
import RelayOutbox
import RelayStore

/// Marks each app of this relay's configuration served (``RelayStore/ServedApps``), a few times per mark
/// interval, so that the mark stays fresh while any relay serves the app.
struct ServedAppsMarker: Service {
    let store: any Store
    let appIds: [String]
    /// This relay's instance id, recorded with the marks it makes.
    let owner: String
    let time: any TimeSource
    let logger: Logger

    /// Marks every app once: a claim each, which another relay's recent one may have made already.
    func markAll() async throws {
        for appId in appIds {
            _ = try await store.claimPeriodicRun(
                job: ServedApps.job(appId),
                owner: owner,
                now: time.now,
                interval: ServedApps.markInterval
            )
        }
    }

    /// Marks every third of the mark interval until cancelled.
    func run() async {
        while !Task.isCancelled {
            do { try await markAll() } catch { logger.storeCallFailed("marking the served apps failed", error) }
            try? await Task.sleep(for: ServedApps.markInterval / 3)
        }
    }
}
