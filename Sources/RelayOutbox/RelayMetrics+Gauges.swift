import RelayCore

extension RelayMetrics {
    /// One gauge series: its label pairs and value.
    public typealias GaugeSample = (labels: [(String, String)], value: Double)

    /// Replaces every series of gauge `name` (one of ``MetricCatalog``'s) with `samples`: what a background
    /// job read from the store, shown by every scrape until it reads again.
    public func setGauges(_ name: String, _ samples: [GaugeSample]) {
        state.withLock { state in
            var family: [Labels: Double] = [:]
            for sample in samples { family[Labels(pairs: sample.labels)] = sample.value }
            state.gauges[name] = family
        }
    }

    /// Takes gauge `name` out of the exposition (a relay that stops reporting the store's figures).
    public func removeGauges(_ name: String) {
        _ = state.withLock { $0.gauges.removeValue(forKey: name) }
    }

    /// `pushrelay_storage_up`: 1 while the storage probe passes, else 0.
    public func setStorageUp(_ up: Bool) {
        setGauges(MetricCatalog.storageUp, [([], up ? 1 : 0)])
    }

    /// `pushrelay_provider_paused{app,platform,environment}`: 1 while an app's sends to a push service's
    /// scope (``RelayCore/PushToken/scope``: APNs' environment) are paused because the service refuses its
    /// credentials, else 0. A service with one scope is labelled `none`.
    public func setProviderPaused(_ paused: Bool, app: String, platform: Platform, scope: String?) {
        setProviderGauge(MetricCatalog.providerPaused, paused, app: app, platform: platform, scope: scope)
    }

    /// `pushrelay_provider_unreachable{app,platform,environment}`: 1 while an app's sends to a push service's
    /// scope are paused because the service does not answer, else 0.
    public func setProviderUnreachable(_ unreachable: Bool, app: String, platform: Platform, scope: String?) {
        setProviderGauge(MetricCatalog.providerUnreachable, unreachable, app: app, platform: platform, scope: scope)
    }

    private func setProviderGauge(_ name: String, _ on: Bool, app: String, platform: Platform, scope: String?) {
        let labels = Labels(pairs: MetricCatalog.providerLabels(app: appLabel(app), platform: platform, scope))
        state.withLock { $0.gauges[name, default: [:]][labels] = on ? 1 : 0 }
    }
}
