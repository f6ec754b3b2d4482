/// A long-lived part of a program, run by a ``ServiceGroup`` (swift-service-lifecycle's shape).
///
/// ``run()`` does the work until the task running it is cancelled, which asks for a graceful shutdown:
/// the service finishes or hands back what it has in flight, then returns. Returning or throwing before
/// that ends the service unexpectedly, and its group stops the others.
public protocol Service: Sendable {
    /// Runs until the calling task is cancelled.
    /// - Throws: what stops the service from running; the group logs it and stops.
    func run() async throws
}
