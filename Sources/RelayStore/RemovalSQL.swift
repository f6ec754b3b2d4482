import RelayCore

/// Which devices a removal push reaches, in both engines' SQL: a browser must show something for every push
/// it takes, so a web device gets no removal (issue 24's decisions), and a message that reached only web
/// devices makes no removal notification.
package enum RemovalSQL {
    /// A condition on a `deliveries` row named `delivery` (a table or alias): its device is not a web device.
    /// A lookup of `devices` by its key.
    package static func reaches(_ delivery: String) -> String {
        """
        NOT EXISTS (SELECT 1 FROM devices AS rd WHERE rd.app_id = \(delivery).app_id
            AND rd.token = \(delivery).token AND rd.platform = '\(Platform.web.rawValue)')
        """
    }
}
