/// One HTTP/2 stream's request as it arrives, and its error body while it is sent.
/// Not `Sendable`: only the event-loop thread uses it.
final class RequestStream {
    let id: Int32
    var headers: [(name: String, value: String)] = []
    /// At most ``RequestValidator/maxBufferedBody`` bytes; the rest is only counted.
    var body: [UInt8] = []
    var bodyBytes = 0
    /// Set once an answer (or RST_STREAM) was submitted.
    var answered = false
    var responseBody: [UInt8] = []
    var responseOffset = 0

    init(id: Int32) {
        self.id = id
        headers.reserveCapacity(10)
    }
}
