/// The push service a device is reached through: Apple's (APNs) for iOS, Google's (FCM) for Android.
public enum Platform: String, Sendable, Codable, Hashable, ListedCases {
    case ios, android
}
