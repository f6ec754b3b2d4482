import RelayCore

extension RelayMetrics {
    /// One badge update attempt's outcome (``DeliveryOutcome``'s `sent`, `retry`, `failed`, `retired`,
    /// `unlinked`), by app and platform.
    public func recordBadgeUpdate(_ outcome: String, app: String, platform: Platform) {
        increment(
            MetricCatalog.badgeUpdates,
            [("app", app), ("platform", platform.rawValue), ("outcome", outcome)]
        )
    }
}
