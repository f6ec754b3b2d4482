import Foundation

/// One prepared HTTP/2 POST, built on the caller's task and handed to the ``CurlMultiDriver`` thread.
package struct CurlRequest: Sendable {
    package var url: String
    /// `name: value` lines.
    package var headers: [String]
    package var body: Data
    /// When the request fails with ``TransportError/Code/timeout`` if it has no answer yet, queueing included.
    package var deadline: ContinuousClock.Instant
    /// The last characters of the device token the request is for, the only part that reaches a log.
    package var tokenSuffix: String
    /// Exempt from the public-address check of ``CurlCommonOptions/UntrustedURLs`` (an app's configured
    /// mock on loopback); meaningless without it.
    package var trustedHost: Bool

    package init(
        url: String,
        headers: [String],
        body: Data,
        deadline: ContinuousClock.Instant,
        tokenSuffix: String,
        trustedHost: Bool = false
    ) {
        self.url = url
        self.headers = headers
        self.body = body
        self.deadline = deadline
        self.tokenSuffix = tokenSuffix
        self.trustedHost = trustedHost
    }
}
