import RelayCore

extension RelayMetrics {
    /// What became of a delivery that asked to wake (``WakeAssigner``): `wake` (sent as a wake push) or
    /// `over_budget` (its device's hourly budget was spent: sent as an alert).
    public func recordWakeDecision(_ decision: String, app: String, platform: Platform) {
        increment(
            MetricCatalog.wakeDecisions,
            [("app", appLabel(app)), ("platform", platform.rawValue), ("decision", decision)]
        )
    }
}
