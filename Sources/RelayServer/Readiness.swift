import FCMCore
import Foundation
import RelayCore
import RelayCurl
import RelayOutbox
import RelayStore

/// What `GET /readyz` answers: whether this relay can take work (the store takes a write and no call has
/// found it damaged), and how each app's push services can be reached (its APNs endpoint, and its FCM
/// endpoint when it has FCM). Only the store decides readiness: an app whose service is unreachable keeps its
/// pushes in the outbox while the others go on, so it is reported in the body, not by taking the relay out of
/// a load balancer.
///
/// Checks are named `storage`, `apns:<appId>`, `fcm:<appId>` and, for an app with `apps[].ditto`,
/// `ditto:<appId>`, besides those other parts report into ``HealthChecks``; a passing check's value is `ok`, a
/// failing one's a short reason (an error code, never a path, key or secret). `ditto:<appId>` reads
/// `degraded (…)` while the app has a pending `requeryRequired` (``RelayStore/DittoRequeries``).
///
/// ``check()`` never waits: it answers from state that background probes refresh (``run()``), so `/readyz`
/// and `/metrics` answer while the database is frozen. The storage probe (a tiny write, and the read of the
/// pending requeries) starts every ``storageRefresh`` unless one is still running; one running longer than
/// ``storageTimeout`` marks storage `unavailable (timeout)` until it ends. A store that any call found
/// damaged (``RelayStore/StorageHealth/damage``: the dispatcher's reads of the outbox, its claims and results
/// among them) takes no more calls (``RelayStore/StorePool``), the probe's write included: it reads
/// `unavailable (corrupt)` from the next probe on. Its result is also the gauge `pushrelay_storage_up`, and a
/// line is logged when storage goes away and when it is back. The endpoint
/// probes (TCP connect plus TLS handshake, ``OutboundHTTP/probe(baseURL:caFile:timeout:)``) run
/// concurrently, one per distinct endpoint, within ``probeTimeout``, every ``cacheDuration``: scrapes never
/// open connections, because APNs treats rapid connect/disconnect as abuse (Apple, "Sending notification
/// requests to APNs"). ``Report/aggregate`` is what a stranger may see: no app id.
public actor Readiness: Service {
    /// One answer.
    public struct Report: Sendable, Equatable {
        /// True when the store takes a write and the relay is not stopping.
        public var ready: Bool { checks["storage"] == "ok" && checks[Readiness.lifecycleCheck] == nil }
        /// Check name to `ok` or a short reason.
        public var checks: [String: String]

        public init(checks: [String: String]) { self.checks = checks }

        /// The checks without app ids, for the API's listener: `storage`, and `push` (when some app has an
        /// endpoint check) `ok` or `N of M failing`. The `ditto:` checks and ``HealthChecks``' are left out.
        public var aggregate: [String: String] {
            var aggregate = ["storage": checks["storage"] ?? "unavailable"]
            aggregate[Readiness.lifecycleCheck] = checks[Readiness.lifecycleCheck]
            let endpoints = checks.filter { $0.key.hasPrefix("apns:") || $0.key.hasPrefix("fcm:") }
            if !endpoints.isEmpty {
                let failing = endpoints.values.filter { $0 != "ok" }.count
                aggregate["push"] = failing == 0 ? "ok" : "\(failing) of \(endpoints.count) failing"
            }
            return aggregate
        }
    }

    /// Where an app's pushes go: for APNs its default environment's endpoint, else Apple's host; for FCM
    /// its endpoint, else Google's.
    struct Target: Hashable {
        var baseURL: String
        var caFile: String?
    }

    private let store: any Store
    /// Check name (`apns:<appId>`, `fcm:<appId>`) to its endpoint, or to the reason it has none.
    private let targets: [String: Result<Target, Unavailable>]
    /// The apps with `apps[].ditto`, by id: whether the relay re-reads after a requery (`httpAPI` set).
    private let dittoApps: [String: Bool]
    private let metrics: RelayMetrics?
    /// What other parts of the relay report.
    public nonisolated let healthChecks: HealthChecks
    public nonisolated let probeTimeout: Duration
    public nonisolated let cacheDuration: Duration
    /// How often the storage probe starts.
    public nonisolated let storageRefresh: Duration
    /// How long a storage probe may run before storage counts as unavailable.
    public nonisolated let storageTimeout: Duration
    private var storage: [String: String] = ["storage": "unavailable (not probed yet)"]
    private var stopping = false
    private var endpoints: [String: String] = [:]
    /// The storage probe running, and when it started.
    private var storageProbe: (id: UInt64, started: ContinuousClock.Instant)?
    private var probeCount: UInt64 = 0

    struct Unavailable: Error, Hashable {
        var reason: String
    }

    /// - Parameters:
    ///   - metrics: where `pushrelay_storage_up` is set; nil: nowhere.
    ///   - healthChecks: the checks other parts report, added to every report.
    ///   - probeTimeout: each endpoint probe's limit. Default 2 s.
    ///   - cacheDuration: how often the endpoints are probed. Default 10 s.
    ///   - storageRefresh: how often storage is probed. Default 1 s.
    ///   - storageTimeout: how long a storage probe may take before storage counts as unavailable. Default 2 s.
    public init(
        store: any Store,
        apps: [Configuration.App],
        metrics: RelayMetrics? = nil,
        healthChecks: HealthChecks = HealthChecks(),
        probeTimeout: Duration = .seconds(2),
        cacheDuration: Duration = .seconds(10),
        storageRefresh: Duration = .seconds(1),
        storageTimeout: Duration = .seconds(2)
    ) {
        self.store = store
        var targets: [String: Result<Target, Unavailable>] = [:]
        for app in apps {
            let apns = "apns:\(app.id)"
            if let mock = app.apns.endpoints[app.apns.defaultEnvironment] {
                targets[apns] = .success(Target(baseURL: mock.baseURL, caFile: mock.caFile))
            } else if app.apns.credentials != nil {
                targets[apns] = .success(Target(baseURL: app.apns.defaultEnvironment.baseURL, caFile: nil))
            } else {
                // Without credentials Apple's hosts are never contacted, and no push could go out.
                targets[apns] = .failure(Unavailable(reason: "no APNs credentials or mock endpoint"))
            }
            // An app without a service account has no Android to check.
            if let fcm = app.fcm, fcm.serviceAccountFile != nil {
                targets["fcm:\(app.id)"] = .success(
                    Target(baseURL: fcm.endpoint?.baseURL ?? FCMLimits.productionBaseURL, caFile: fcm.endpoint?.caFile)
                )
            }
        }
        self.targets = targets
        endpoints = targets.mapValues { _ in "unknown (not probed yet)" }
        dittoApps = Dictionary(
            apps.compactMap { app in app.ditto.map { (app.id, $0.httpAPI != nil) } },
            uniquingKeysWith: { first, _ in first }
        )
        self.metrics = metrics
        self.healthChecks = healthChecks
        self.probeTimeout = probeTimeout
        self.cacheDuration = cacheDuration
        self.storageRefresh = storageRefresh
        self.storageTimeout = storageTimeout
    }

    /// The checks as the probes last left them, with ``healthChecks``; never waits.
    public func check() -> Report {
        var checks = healthChecks.snapshot.merging(endpoints) { _, own in own }.merging(storage) { _, own in own }
        if stopping { checks[Self.lifecycleCheck] = "stopping" }
        return Report(checks: checks)
    }

    /// The check a stopping relay adds (`lifecycle: stopping`), which makes it unready.
    public static let lifecycleCheck = "lifecycle"

    /// From now on the relay is not ready: it is stopping, and a load balancer should send it nothing more
    /// while it serves on for `http.closeDelaySeconds` and its listeners finish the requests in flight
    /// (``Relay`` calls this first when it stops).
    public func beginStopping() {
        stopping = true
    }

    /// The first round of probes, waited for (each within its limit): a relay about to listen answers its
    /// first scrape from them.
    public func probeOnce() async {
        async let endpointRound: Void = probeEndpoints()
        await startStorageProbe().wait(until: .now + storageTimeout)
        expireStorageProbe()
        await endpointRound
    }

    /// Refreshes the storage check every ``storageRefresh`` and the endpoint checks every ``cacheDuration``
    /// until cancelled. A storage probe still running then finishes on its own.
    public func run() async {
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.storageRefresh)
                    guard !Task.isCancelled else { return }
                    await self.refreshStorage()
                }
            }
            group.addTask {
                while !Task.isCancelled {
                    try? await Task.sleep(for: self.cacheDuration)
                    guard !Task.isCancelled else { return }
                    await self.probeEndpoints()
                }
            }
        }
    }

    /// Starts a storage probe unless one is running; marks storage unavailable when that one is overdue.
    private func refreshStorage() {
        if storageProbe == nil { startStorageProbe() } else { expireStorageProbe() }
    }

    /// - Returns: what happens once the probe's result is in.
    @discardableResult
    private func startStorageProbe() -> OneShotEvent {
        probeCount += 1
        let id = probeCount
        storageProbe = (id, ContinuousClock.now)
        let store = self.store
        let dittoApps = self.dittoApps
        // Unstructured: a probe blocked in the database must not hold up the refresh loop or a shutdown.
        let finished = OneShotEvent()
        Task {
            let checks = await Self.probeStorage(store, dittoApps: dittoApps)
            self.finishStorageProbe(id, checks)
            finished.signal()
        }
        return finished
    }

    /// Storage is unavailable while the running probe is older than ``storageTimeout``.
    private func expireStorageProbe() {
        guard let probe = storageProbe, ContinuousClock.now - probe.started >= storageTimeout else { return }
        var checks = storage
        checks["storage"] = "unavailable (timeout)"
        publish(checks)
    }

    private func finishStorageProbe(_ id: UInt64, _ checks: [String: String]) {
        guard storageProbe?.id == id else { return }
        storageProbe = nil
        publish(checks)
    }

    /// Makes `checks` the storage checks and sets the gauge. Storage going away and coming back is logged
    /// once by the store's own ``RelayStore/StorageHealth``, which sees every call (this probe's too).
    private func publish(_ checks: [String: String]) {
        storage = checks
        metrics?.setStorageUp(checks["storage"] == "ok")
    }

    /// The storage check's result (`ok` or `unavailable (<code>)`) and each Ditto app's check. The store must
    /// take a write; one that any call found damaged takes none (a file that takes the write but whose outbox
    /// cannot be read, corrupted as a restore over a stale WAL leaves one, sends nothing: the dispatcher
    /// reads the outbox every poll interval).
    private static func probeStorage(_ store: any Store, dittoApps: [String: Bool]) async -> [String: String] {
        var checks: [String: String] = [:]
        do {
            try await store.checkWritable()
            checks["storage"] = "ok"
        } catch let error as StoreError {
            checks["storage"] = "unavailable (\(error.code))"
        } catch {
            checks["storage"] = "unavailable"
        }
        guard !dittoApps.isEmpty else { return checks }
        let pending: [String: UInt64]?
        do { pending = try await store.pendingDittoRequeries() } catch { pending = nil }
        for (app, rereads) in dittoApps {
            checks["ditto:\(app)"] = dittoCheck(app: app, pending: pending.map { $0[app] }, rereads: rereads)
        }
        return checks
    }

    /// A Ditto app's check: `ok` without a pending requery, else `degraded (…)` saying what clears it.
    /// - Parameter pending: nil when the store could not be read, else the pending requery's txnId or nil.
    static func dittoCheck(app: String, pending: UInt64??, rereads: Bool) -> String {
        guard let pending else { return "unknown (the store cannot be read)" }
        guard let txnId = pending else { return "ok" }
        return rereads
            ? "degraded (requeryRequired txnId \(txnId): re-reading the collections through the HTTP API)"
            : "degraded (requeryRequired txnId \(txnId): re-feed the collections, then "
                + "\(DittoEvent.requeryDoneStep(app: app, txnId: txnId)))"
    }

    /// One round of endpoint probes; its results replace the last round's.
    private func probeEndpoints() async {
        endpoints = await Self.probeAll(targets, timeout: probeTimeout)
    }

    /// Probes each distinct endpoint once, concurrently; each check gets its endpoint's result.
    private static func probeAll(
        _ targets: [String: Result<Target, Unavailable>],
        timeout: Duration
    ) async -> [String:
        String]
    {
        let endpoints = Set(targets.values.compactMap { try? $0.get() })
        let results = await withTaskGroup(of: (Target, String).self) { group in
            for target in endpoints {
                group.addTask {
                    do throws(TransportError) {
                        try await OutboundHTTP.probe(baseURL: target.baseURL, caFile: target.caFile, timeout: timeout)
                        return (target, "ok")
                    } catch {
                        return (target, "unreachable (\(error.code))")
                    }
                }
            }
            var results: [Target: String] = [:]
            for await (target, result) in group { results[target] = result }
            return results
        }
        var checks: [String: String] = [:]
        for (name, target) in targets {
            switch target {
            case .success(let target): checks[name] = results[target] ?? "unreachable"
            case .failure(let unavailable): checks[name] = unavailable.reason
            }
        }
        return checks
    }
}
