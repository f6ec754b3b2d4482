/// A push service's decision after one attempt (FCM's, Web Push's), named as `push-relay send` prints it.
public protocol NamedFate: Sendable {
    /// The fate's name: `delivered`, `retire`, `retry`, `fail`, or the service's own (`credentials_refused`,
    /// `forbidden`).
    var fateName: String { get }
    /// Why the delivery is given up, for `fail`; nil for every other fate.
    var failure: DeliveryFailure? { get }
}
