import Foundation
import RelayCore
import RelayStore

/// Re-reads an app's mirrored collections (its rooms, DM rooms and users collections; message collections
/// are not mirrored) through Ditto's HTTP API after a `requeryRequired`, so the app's readiness check turns
/// `ok` again.
///
/// Each ``Settings/poll`` the job looks for the app's pending requery and takes its lease in the store (one
/// relay at a time; a dead holder's lease is taken over once it runs out). It pages through each collection
/// (``Settings/pageSize`` documents at a time, never a whole collection in memory) and applies every page
/// with the events' applier, as upserts at the REQUERY's txnId: a document changed later by a higher txnId
/// stays as it is, and no page pushes anything (rooms and users never do). After a collection's last page
/// the documents it no longer holds are removed (``RelayStore/DittoRequeries/sweepDittoCollection(_:below:appId:settings:)``);
/// then the requery is marked complete, and a higher one that arrived meanwhile is re-read next. A failure
/// (no answer, a status other than 200, bad JSON, the store) is logged without the API key and retried
/// after a back-off that doubles up to ``Settings/maxBackoff``; the requery stays pending meanwhile.
struct DittoRequeryJob: Service {
    /// How often and how the job works.
    struct Settings: Sendable {
        /// How often the job looks for a pending requery.
        var poll: Duration = .seconds(1)
        /// The first wait after a failure; it doubles up to ``maxBackoff``.
        var minBackoff: Duration = .seconds(1)
        var maxBackoff: Duration = .seconds(60)
        /// How long the lease lasts past each page, in SECONDS: another relay takes the re-read over when
        /// its holder has not renewed it for that long.
        var leaseSeconds = 60
        /// Documents asked for per page.
        var pageSize = 500

        init() {}
    }

    /// The HTTP API answered a full page that does not move past the last one (it ignored `after`): going on
    /// would read the same page for ever.
    private struct PagesDoNotAdvance: Error, CustomStringConvertible {
        var collection: String
        var description: String {
            "the HTTP API answered the same page of \(collection) again (`_id` > :after ignored)"
        }
    }

    /// The lease went to another relay (this one stalled past ``Settings/leaseSeconds``).
    private struct LostLease: Error, CustomStringConvertible {
        var description: String { "another relay took the re-read over" }
    }

    let appId: String
    let api: DittoQueryAPI
    let applySettings: DittoApplySettings
    let store: any Store
    /// Who holds the lease (the relay's instance id).
    let owner: String
    let time: any TimeSource
    let logger: Logger
    var settings = Settings()
    /// Where a failing re-read says so: `ditto-reread:<appId>` on the admin `/readyz`, `failing (…)` with
    /// what failed (a status, never a key or a document), gone once a round succeeds.
    var reports: HealthChecks?
    private var checkName: String { "ditto-reread:\(appId)" }

    /// The collections re-read: rooms, DM rooms and users, each once.
    var collections: [String] {
        let names = applySettings.rule.collections
        var seen: [String] = []
        for name in [names.rooms, names.dmRooms, names.users] where !seen.contains(name) { seen.append(name) }
        return seen
    }

    /// Looks for a pending requery every ``Settings/poll`` until cancelled.
    func run() async {
        var backoff = settings.minBackoff
        while !Task.isCancelled {
            do {
                _ = try await runIfPending()
                reports?.remove(checkName)
                backoff = settings.minBackoff
                try? await Task.sleep(for: settings.poll)
            } catch {
                let failure = (error as? StoreError).map { "the store: \($0.code)" } ?? "\(error)"
                reports?.set(checkName, "failing (\(failure))")
                logger.warning(
                    "the Ditto re-read failed; retrying",
                    ["app.id": appId, "error": "\(error)", "retry.milliseconds": Int(backoff / .milliseconds(1))]
                )
                try? await Task.sleep(for: backoff)
                backoff = min(backoff * 2, settings.maxBackoff)
            }
        }
    }

    /// Re-reads the app's collections when a requery is pending and this relay gets its lease.
    /// - Returns: whether it re-read.
    /// - Throws: ``DittoQueryAPI/Failure``, the store's error, or when the lease went to another relay.
    func runIfPending() async throws -> Bool {
        guard try await store.pendingDittoRequeries()[appId] != nil, let txnId = try await claim() else {
            return false
        }
        logger.info("re-reading the Ditto collections", ["app.id": appId, "ditto.txn_id": txnId])
        var read = 0
        var removed = 0
        for collection in collections {
            var after: JSONValue?
            while true {
                if Task.isCancelled { return false }
                let page = try await api.page(of: collection, after: after, limit: settings.pageSize)
                // A document passed over is read as absent: the sweep removes what it was.
                if page.passedOver > 0 {
                    logger.warning(
                        "Ditto documents passed over in the re-read (nested too deep, holding NUL, or an `_id` "
                            + "that is not a string)",
                        ["app.id": appId, "ditto.collection": collection, "count": page.passedOver]
                    )
                }
                if !page.documents.isEmpty {
                    let events = page.documents.map {
                        DittoEvent(
                            txnId: txnId,
                            kind: .documentChanged,
                            collection: collection,
                            change: .upsert(old: nil, new: $0)
                        )
                    }
                    _ = try await store.applyDittoEvents(events, appId: appId, settings: applySettings, at: time.now)
                    read += page.documents.count
                }
                guard try await claim() != nil else { throw LostLease() }
                guard page.count >= settings.pageSize, let last = page.lastId else { break }
                guard last != after else { throw PagesDoNotAdvance(collection: collection) }
                after = last
            }
            removed += try await store.sweepDittoCollection(
                collection,
                below: txnId,
                appId: appId,
                settings: applySettings
            )
        }
        let next = try await store.completeDittoRequery(appId: appId, txnId: txnId, owner: owner)
        logger.info(
            "re-read the Ditto collections",
            ["app.id": appId, "ditto.txn_id": txnId, "ditto.documents": read, "ditto.removed": removed]
        )
        if let next { logger.info("a later requeryRequired is pending", ["app.id": appId, "ditto.txn_id": next]) }
        return true
    }

    /// Takes or renews the lease; the pending requery's txnId, or nil.
    private func claim() async throws -> UInt64? {
        try await store.claimDittoRequery(
            appId: appId,
            owner: owner,
            now: time.now,
            leaseSeconds: settings.leaseSeconds
        )
    }
}
