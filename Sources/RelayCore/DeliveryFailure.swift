/// Why a delivery was given up.
public enum DeliveryFailure: String, Sendable, Equatable, Codable {
    /// The service refused the notification itself; sending it again cannot help.
    case rejected
    /// The app's push configuration is wrong (topic, key, certificate, service account): the operator must
    /// act.
    case configuration
    /// A request the relay should never have produced.
    case relayBug = "relay_bug"
    /// Retries used up.
    case exhausted
    /// Its expiration passed before it could be sent: the service would hold it no longer.
    case expired
}
