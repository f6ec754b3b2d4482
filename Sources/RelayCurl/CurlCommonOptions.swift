/// The options every easy handle of one client shares. The HTTP version follows each request's URL: HTTP/2
/// over TLS (ALPN) for `https://`, h2c with prior knowledge (RFC 9113 §3.3) for `http://`.
package struct CurlCommonOptions: Sendable {
    /// A TLS client certificate (APNs certificate auth).
    package struct Certificate: Sendable {
        package var path: String
        /// `PEM` or `P12`.
        package var type: String
        package var keyPath: String?
        package var password: String?

        package init(path: String, type: String, keyPath: String?, password: String?) {
            self.path = path
            self.type = type
            self.keyPath = keyPath
            self.password = password
        }
    }
    package var connectTimeoutMs: Int
    /// `CURLOPT_UPKEEP_INTERVAL_MS` (HTTP/2 PING when idle) and the TCP keep-alive interval; nil for neither.
    package var upkeepIntervalMs: Int?
    /// A PEM CA bundle to verify the server with; nil uses the system store. With ``untrustedURLs`` it
    /// verifies only ``CurlRequest/trustedHost`` requests; every other host is verified by the system store.
    package var caFile: String?
    package var certificate: Certificate?
    /// Guards for URLs that users give (Web Push endpoints), nil for the relay's own push services.
    package var untrustedURLs: UntrustedURLs?

    /// How a client treats URLs that users give, against server-side request forgery: it connects only to
    /// public addresses (``RelayCore/IPAddress/isPublic``, checked by `CURLOPT_OPENSOCKETFUNCTION` for each
    /// address libcurl tries, so a name resolved again cannot slip past), unless the request is
    /// ``CurlRequest/trustedHost``; it follows no redirect, uses no proxy from the environment, speaks only
    /// ``protocols``, and aborts an answer whose body exceeds ``maxResponseBytes``.
    package struct UntrustedURLs: Sendable {
        /// `CURLOPT_PROTOCOLS_STR`, e.g. `https`, or `http,https` when a trusted mock is plain http.
        package var protocols: String
        /// The most bytes of an answer's body read; a longer one fails the request with
        /// ``TransportError/Code/responseTooLarge``.
        package var maxResponseBytes: Int

        package init(protocols: String, maxResponseBytes: Int) {
            self.protocols = protocols
            self.maxResponseBytes = maxResponseBytes
        }
    }

    package init(
        connectTimeoutMs: Int,
        upkeepIntervalMs: Int?,
        caFile: String?,
        certificate: Certificate? = nil,
        untrustedURLs: UntrustedURLs? = nil
    ) {
        self.connectTimeoutMs = connectTimeoutMs
        self.upkeepIntervalMs = upkeepIntervalMs
        self.caFile = caFile
        self.certificate = certificate
        self.untrustedURLs = untrustedURLs
    }
}
