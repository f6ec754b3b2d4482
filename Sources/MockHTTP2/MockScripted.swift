/// A mock's script as the generic ``MockServer`` reads it: answers per device token, and faults per
/// connection.
package protocol MockScripted: Sendable {
    associatedtype Rule: MockDeviceRule
    /// The per-token rules, in order: the first that applies and is not used up decides a valid request's
    /// answer.
    var devices: [Rule] { get }
    /// The faults injected on connections; none unless the service's script has them.
    var connections: [MockConnectionRule] { get }
}

extension MockScripted {
    package var connections: [MockConnectionRule] { [] }
}

/// One per-token rule of a script: which tokens it is for, how many requests it takes, and whether its answer
/// waits or never comes. What it answers is the service's (``MockService/answer(_:scriptedBy:)``).
package protocol MockDeviceRule: Sendable {
    /// Apply the rule to this many matching requests, then fall through (nil: every request).
    var count: Int? { get }
    /// Wait this many MILLISECONDS before answering.
    var delayMs: Int? { get }
    /// Never answer: the stream stays open until the client resets it or the connection closes.
    var neverAnswer: Bool? { get }
    /// Whether the rule is for `token` (as the service's check returned it).
    func applies(to token: String) -> Bool
}
