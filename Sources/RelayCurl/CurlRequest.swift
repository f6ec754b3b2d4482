import Foundation

/// One prepared HTTP/2 POST, built on the caller's task and handed to the ``CurlMultiDriver`` thread. A
/// class: it is passed from task to queue to handle, and copying its fields each time cost retains and
/// releases per push.
package final class CurlRequest: Sendable {
    package let url: String
    /// `name: value` lines of this request alone.
    package let headers: [String]
    /// Lines sent after ``headers``, shared with other requests.
    package let sharedHeaders: CurlHeaderBlock?
    package let body: Data
    /// When the request fails with ``TransportError/Code/timeout`` if it has no answer yet, queueing included.
    package let deadline: ContinuousClock.Instant
    /// The last characters of the device token the request is for, the only part that reaches a log.
    package let tokenSuffix: String
    /// Exempt from the public-address check of ``CurlCommonOptions/UntrustedURLs`` (an app's configured
    /// mock on loopback); meaningless without it.
    package let trustedHost: Bool

    package init(
        url: String,
        headers: [String],
        sharedHeaders: CurlHeaderBlock? = nil,
        body: Data,
        deadline: ContinuousClock.Instant,
        tokenSuffix: String,
        trustedHost: Bool = false
    ) {
        self.url = url
        self.headers = headers
        self.sharedHeaders = sharedHeaders
        self.body = body
        self.deadline = deadline
        self.tokenSuffix = tokenSuffix
        self.trustedHost = trustedHost
    }

    /// Every header line, as sent: ``headers``, then ``sharedHeaders``'.
    package var allHeaders: [String] { headers + (sharedHeaders?.lines ?? []) }
}
