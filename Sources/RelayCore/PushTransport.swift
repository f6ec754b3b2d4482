/// A push service as the outbox sees it: sends one claimed delivery and answers what became of it. The
/// APNs, FCM and Web Push transports conform; the dispatcher knows only this.
///
/// A transport renders the job for its platform, sends it (renewing its own credentials as its service asks)
/// and decides the delivery's and the token's fate by its platform's rules, all in ``send(_:)``.
public protocol PushTransport: Sendable {
    /// The platform whose devices this transport reaches.
    var platform: Platform { get }
    /// Every reason its results may carry besides `HTTP <status>`: its service's documented reasons and its
    /// own. The metrics' `reason` label takes these (and the relay's own) and counts any other as `other`.
    var reasons: Set<String> { get }
    /// Sends `job` once (plus any resend its service's rules call for at once) and answers its fate; every
    /// failure is a result, never a throw.
    func send(_ job: DeliveryJob) async -> PushResult
    /// Sends a badge update once, as a delivery is sent, its fate decided by the same rules (a dead token
    /// retires the device, a transient failure retries); a platform without badges answers `.fail`.
    func send(_ update: BadgeUpdateJob) async -> PushResult
    /// Stops after the sends in flight have finished.
    func shutdown() async
}
