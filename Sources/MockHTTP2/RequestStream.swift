/// One HTTP/2 stream's request as it arrives, and its answer's body while it is sent.
/// Not `Sendable`: only the event-loop thread uses it.
package final class RequestStream {
    package let id: Int32
    package var headers: [(name: String, value: String)] = []
    /// At most the loop's `bodyLimit` bytes; the rest is only counted in ``bodyBytes``.
    package var body: [UInt8] = []
    package var bodyBytes = 0
    /// Set once an answer (or RST_STREAM) was submitted.
    package var answered = false
    var responseBody: [UInt8] = []
    var responseOffset = 0

    init(id: Int32) {
        self.id = id
        headers.reserveCapacity(10)
    }
}
