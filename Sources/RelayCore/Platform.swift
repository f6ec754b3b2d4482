/// The push service a device is reached through: Apple's (APNs) for iOS, Google's (FCM) for Android, the
/// browser's push service (Web Push) for a web app.
public enum Platform: String, Sendable, Codable, Hashable, ListedCases {
    case ios, android, web
}
