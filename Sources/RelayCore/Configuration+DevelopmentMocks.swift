extension Configuration.App {
    /// The platforms whose pushes `serve` sends to in-process mocks for this app (development): iOS without
    /// APNs credentials or endpoints; Android when its `fcm` names no service account, or when it has neither
    /// `fcm` nor APNs credentials; the web likewise with `webPush` and its VAPID key. An app with APNs
    /// credentials and no `fcm` (no `webPush`) has no Android (web) devices instead.
    public var developmentMocks: [Platform] {
        var mocks: [Platform] = []
        if apns.credentials == nil && apns.endpoints.isEmpty { mocks.append(.ios) }
        if fcm.map({ $0.serviceAccountFile == nil }) ?? (apns.credentials == nil) { mocks.append(.android) }
        if webPush.map({ $0.vapidKeyFile == nil }) ?? (apns.credentials == nil) { mocks.append(.web) }
        return mocks
    }

    /// Whether the app holds a push service's credentials (an APNs key or certificate, an FCM service account,
    /// a VAPID key): a production app, not a development one.
    var hasCredentials: Bool {
        apns.credentials != nil || fcm?.serviceAccountFile != nil || webPush?.vapidKeyFile != nil
    }
}

extension Configuration {
    /// A warning for each app whose pushes of some platform would go to in-process mocks where that is likely
    /// a mistake: an app with credentials for another platform (a production app: the mock accepts its pushes
    /// and they count as sent), or any app on a relay listening beyond loopback.
    var developmentMockWarnings: [String] {
        let local = http.host.isEmpty || Self.isLoopback(http.host)
        return apps.enumerated().compactMap { index, app in
            let mocks = app.developmentMocks
            guard !mocks.isEmpty, app.hasCredentials || !local else { return nil }
            let settings = mocks.map { platform in
                switch platform {
                case .ios: "apps[\(index)].apns.credentials"
                case .android: "apps[\(index)].fcm.serviceAccountFile"
                case .web: "apps[\(index)].webPush.vapidKeyFile"
                }
            }
            return "app '\(app.id)' sends its \(mocks.map(\.rawValue).joined(separator: ", ")) pushes to an "
                + "in-process mock, where they count as sent and reach no device (no "
                + settings.joined(separator: ", ") + "): mocks are for development"
        }
    }
}
