/// A push service as the outbox sees it: sends one claimed delivery and answers what became of it. The
/// APNs, FCM and Web Push transports conform; the dispatcher knows only this.
///
/// A transport renders the job for its platform, sends it (renewing its own credentials as its service asks)
/// and decides the delivery's and the token's fate by its platform's rules, all in ``send(_:)``. The outbox
/// starts its sends with ``start(_:completion:)``, which a transport whose client answers on a thread of its
/// own implements without a task waiting per push; by default it is ``send(_:)`` in a task.
public protocol PushTransport: Sendable {
    /// The platform whose devices this transport reaches.
    var platform: Platform { get }
    /// Every reason its results may carry besides `HTTP <status>`: its service's documented reasons and its
    /// own. The metrics' `reason` label takes these (and the relay's own) and counts any other as `other`.
    var reasons: Set<String> { get }
    /// Sends `job` once (plus any resend its service's rules call for at once) and answers its fate; every
    /// failure is a result, never a throw. A send is not cancelled with its task: it ends within the
    /// transport's request timeout, and its answer is its result.
    func send(_ job: DeliveryJob) async -> PushResult
    /// Sends `job` as ``send(_:)`` does and calls `completion` once with its fate, on whatever thread the
    /// answer comes on.
    func start(_ job: DeliveryJob, completion: @escaping @Sendable (PushResult) -> Void)
    /// Sends a badge update once, as a delivery is sent, its fate decided by the same rules (a dead token
    /// retires the device, a transient failure retries); a platform without badges answers `.fail`.
    func send(_ update: BadgeUpdateJob) async -> PushResult
    /// Stops after the sends in flight have finished.
    func shutdown() async
}

extension PushTransport {
    public func start(_ job: DeliveryJob, completion: @escaping @Sendable (PushResult) -> Void) {
        Task { completion(await send(job)) }
    }
}
