/// What a mock does with one connection's requests: the mock APNs' validation and faults, the mock FCM's
/// routes. Called on the loop thread only, so an implementation needs no locks for its own state.
package protocol ConnectionHandler: AnyObject {
    /// The HTTP/2 session exists (after the TLS handshake, if any): submit the first SETTINGS here.
    func sessionStarted(_ connection: H2Connection)
    /// A request arrived whole (END_STREAM). Answer it now or later (``H2Connection/respond(_:status:headers:body:)``,
    /// a timer), refuse it, or leave it unanswered.
    func requestComplete(_ stream: RequestStream, on connection: H2Connection)
    /// Another thread woke the loop (a script changed).
    func woken(_ connection: H2Connection)
}

extension ConnectionHandler {
    package func woken(_ connection: H2Connection) {}
}
