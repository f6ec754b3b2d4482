/// Why a server closed a connection itself, before or instead of answering it: the `http.closure` of the
/// debug log and the `reason` label of the listener's metric, each as its raw value.
public enum ConnectionClosure: String, Sendable, CaseIterable {
    /// A keep-alive connection that sent no byte since its last answer, closed at the header deadline: a
    /// client's idle pool as much as anything, told apart from one that began a request and did not finish
    /// its head.
    case idle
    /// Its request's line and headers (or TLS handshake) were not in by the header deadline.
    case headerDeadline = "header_deadline"
    /// Its request's body was not in by the body deadline.
    case bodyDeadline = "body_deadline"
    /// Its request's body arrived slower than ``HTTPServerConfiguration/minBodyBytesPerSecond``.
    case slowBody = "slow_body"
    /// Its client took its answers slower than ``HTTPServerConfiguration/minBodyBytesPerSecond``.
    case slowAnswer = "slow_answer"
    /// At accept: its peer address was at ``HTTPServerConfiguration/maxConnectionsPerAddress``.
    case addressCap = "address_cap"
    /// At accept: its peer's address range was at ``HTTPServerConfiguration/maxConnectionsPerPrefix``.
    case prefixCap = "prefix_cap"
    /// Its unfinished request was dropped so that new connections fit under the limit.
    case shed
}
