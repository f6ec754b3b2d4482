/// Whether a device token still gets notifications.
public enum DeviceState: String, Sendable, Codable, CaseIterable, Hashable {
    /// Registered and receiving deliveries.
    case live
    /// APNs said the token is no longer valid (410), or the relay retired it: no deliveries are created
    /// for it until the app registers it again.
    case retired
}
