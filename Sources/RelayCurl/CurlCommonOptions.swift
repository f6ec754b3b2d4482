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
    /// A PEM CA bundle to verify the server with; nil uses the system store.
    package var caFile: String?
    package var certificate: Certificate?

    package init(
        connectTimeoutMs: Int,
        upkeepIntervalMs: Int?,
        caFile: String?,
        certificate: Certificate? = nil
    ) {
        self.connectTimeoutMs = connectTimeoutMs
        self.upkeepIntervalMs = upkeepIntervalMs
        self.caFile = caFile
        self.certificate = certificate
    }
}
