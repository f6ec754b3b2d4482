/// Whether a device token still gets notifications.
public enum DeviceState: String, Sendable, Codable, CaseIterable, Hashable {
    /// Registered and receiving deliveries.
    case live
    /// Its push service said the token is no longer valid (APNs' 410, FCM's UNREGISTERED, a Web Push
    /// service's 404 or 410, for example), or the relay retired it: no deliveries are created for it until
    /// the app registers it again.
    case retired
}
