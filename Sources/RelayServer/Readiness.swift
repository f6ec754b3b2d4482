import Foundation
import RelayCore
import RelayCurl
import RelayStore

/// What `GET /readyz` answers: whether this relay can take work (the store takes a write), and how each
/// app's push services can be reached (its APNs endpoint, and its FCM endpoint when it has FCM). Only the
/// store decides readiness: an app whose service is unreachable keeps its pushes in the outbox while the
/// others go on, so it is reported in the body, not by taking the relay out of a load balancer.
///
/// Checks are named `storage`, `apns:<appId>`, `fcm:<appId>` and, for an app with `apps[].ditto`,
/// `ditto:<appId>`; a passing check's value is `ok`, a failing one's a short reason (an error code, never a
/// path, key or secret). `ditto:<appId>` reads `degraded (…)` while the app has a pending `requeryRequired`
/// (``RelayStore/DittoRequeries``). The storage check (a tiny write, and the read of the pending requeries)
/// runs at most once per ``storageRefresh``, concurrent calls sharing it: `/readyz` needs no credential, so
/// its calls must not each write to the store. ``Report/aggregate`` is what a stranger may see: no app id. The
/// endpoint probes (TCP connect plus TLS handshake,
/// ``OutboundHTTP/probe(baseURL:caFile:timeout:)``)
/// run concurrently, one per distinct endpoint, within ``probeTimeout``, and their results are cached for
/// ``cacheDuration``: concurrent and repeated scrapes share one round of probes, because APNs treats rapid
/// connect/disconnect as abuse (Apple, "Sending notification requests to APNs").
public actor Readiness {
    /// One answer.
    public struct Report: Sendable, Equatable {
        /// True when the store takes a write.
        public var ready: Bool { checks["storage"] == "ok" }
        /// Check name to `ok` or a short reason.
        public var checks: [String: String]

        public init(checks: [String: String]) { self.checks = checks }

        /// The checks without app ids, for the API's listener: `storage`, and `push` (when some app has an
        /// endpoint check) `ok` or `N of M failing`. The `ditto:` checks are left out.
        public var aggregate: [String: String] {
            var aggregate = ["storage": checks["storage"] ?? "unavailable"]
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
    public nonisolated let probeTimeout: Duration
    public nonisolated let cacheDuration: Duration
    /// How long a storage check's result is reused.
    public nonisolated let storageRefresh: Duration
    private var cached: (at: ContinuousClock.Instant, checks: [String: String])?
    private var running: Task<[String: String], Never>?
    private var storage: (at: ContinuousClock.Instant, checks: [String: String])?
    private var storageRunning: Task<[String: String], Never>?

    struct Unavailable: Error, Hashable {
        var reason: String
    }

    /// - Parameters:
    ///   - probeTimeout: each probe's limit. Default 2 s.
    ///   - cacheDuration: how long probe results are reused. Default 10 s.
    ///   - storageRefresh: how long a storage check's result is reused. Default 1 s.
    public init(
        store: any Store,
        apps: [Configuration.App],
        probeTimeout: Duration = .seconds(2),
        cacheDuration: Duration = .seconds(10),
        storageRefresh: Duration = .seconds(1)
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
        dittoApps = Dictionary(
            apps.compactMap { app in app.ditto.map { (app.id, $0.httpAPI != nil) } },
            uniquingKeysWith: { first, _ in first }
        )
        self.probeTimeout = probeTimeout
        self.cacheDuration = cacheDuration
        self.storageRefresh = storageRefresh
    }

    /// Runs the checks (results possibly from their caches).
    public func check() async -> Report {
        let checks = await endpointChecks()
        return Report(checks: checks.merging(await storageChecks()) { _, storage in storage })
    }

    /// The storage check's result (`ok` or `unavailable (<code>)`) and each Ditto app's check.
    private func storageChecks() async -> [String: String] {
        if let storage, ContinuousClock.now - storage.at < storageRefresh { return storage.checks }
        if let storageRunning { return await storageRunning.value }
        let store = self.store
        let dittoApps = self.dittoApps
        let task = Task {
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
                checks["ditto:\(app)"] = Self.dittoCheck(pending: pending.map { $0[app] }, rereads: rereads)
            }
            return checks
        }
        storageRunning = task
        let checks = await task.value
        storage = (ContinuousClock.now, checks)
        storageRunning = nil
        return checks
    }

    /// A Ditto app's check: `ok` without a pending requery, else `degraded (…)` saying what clears it.
    /// - Parameter pending: nil when the store could not be read, else the pending requery's txnId or nil.
    static func dittoCheck(pending: UInt64??, rereads: Bool) -> String {
        guard let pending else { return "unknown (the store cannot be read)" }
        guard let txnId = pending else { return "ok" }
        return rereads
            ? "degraded (requeryRequired txnId \(txnId): re-reading the collections through the HTTP API)"
            : "degraded (requeryRequired txnId \(txnId): re-feed the collections, then run "
                + "push-relay storage requery-done)"
    }

    private func endpointChecks() async -> [String: String] {
        if let cached, ContinuousClock.now - cached.at < cacheDuration { return cached.checks }
        if let running { return await running.value }
        let targets = self.targets
        let timeout = probeTimeout
        let task = Task { await Self.probeAll(targets, timeout: timeout) }
        running = task
        let checks = await task.value
        cached = (ContinuousClock.now, checks)
        running = nil
        return checks
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
