import CCurl
import Foundation

/// One libcurl easy handle for a client's HTTP/2 requests, reused for many. Not `Sendable`: only the driver
/// thread touches it.
///
/// Options common to every request are set once in `init`; ``prepare(_:timeoutMs:)`` sets the per-request
/// ones.
final class CurlEasyHandle: CurlEasy {
    /// The response body kept (an error JSON, small).
    static let maxBodyBytes = 16 * 1024
    /// The `CURLOPT_HTTP_VERSION` last set; -1 before the first request.
    private var httpVersion = -1

    /// - Throws: ``TransportError`` `.other` when libcurl cannot make a handle or refuses an option.
    init(options: CurlCommonOptions) throws(TransportError) {
        try super.init(bodyLimit: Self.maxBodyBytes)
        try set(CURLOPT_POST, 1)
        try set(CURLOPT_PIPEWAIT, 1)
        try set(CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMs)
        // libcurl closes connections idle for 118 s by default; APNs wants them kept for hours, and a push
        // service reached again is faster on a warm connection.
        try set(CURLOPT_MAXAGE_CONN, 24 * 3600)
        if let ping = options.upkeepIntervalMs {
            // TCP keep-alive probes keep an idle connection alive. The connections stay in the multi handle's
            // own pool, the only one CURLMOPT_MAX_HOST_CONNECTIONS bounds, which curl_easy_upkeep (an
            // HTTP/2 PING) cannot reach.
            let seconds = max(1, ping / 1000)
            try set(CURLOPT_TCP_KEEPALIVE, 1)
            try set(CURLOPT_TCP_KEEPIDLE, seconds)
            try set(CURLOPT_TCP_KEEPINTVL, seconds)
        }
        if let caFile = options.caFile { try set(CURLOPT_CAINFO, caFile) }
        if let certificate = options.certificate {
            try set(CURLOPT_SSLCERT, certificate.path)
            try set(CURLOPT_SSLCERTTYPE, certificate.type)
            if let key = certificate.keyPath { try set(CURLOPT_SSLKEY, key) }
            if let password = certificate.password { try set(CURLOPT_KEYPASSWD, password) }
        }
    }

    /// Sets what differs per request: URL (and the HTTP version its scheme asks for), headers, body (copied
    /// by libcurl), timeout in milliseconds.
    /// - Throws: ``TransportError`` `.other` when libcurl refuses an option or runs out of memory.
    func prepare(_ request: CurlRequest, timeoutMs: Int) throws(TransportError) {
        resetTransfer()
        try setHeaders(request.headers)
        try set(CURLOPT_URL, request.url)
        let version =
            Self.isCleartext(request.url)
            ? Int(CURL_HTTP_VERSION_2_PRIOR_KNOWLEDGE) : Int(CURL_HTTP_VERSION_2TLS)
        if version != httpVersion {
            try set(CURLOPT_HTTP_VERSION, version)
            httpVersion = version
        }
        try setBody(request.body)
        try set(CURLOPT_TIMEOUT_MS, timeoutMs)
    }

    /// Sets the timeout alone (for a resend on the same handle), in milliseconds.
    func setTimeout(ms: Int) {
        resetTransfer()
        _ = ccurl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, ms)
    }

    /// The value of the last response's header `name` (case-insensitive), read with `curl_easy_header`.
    func responseHeader(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(raw, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
            let value = header?.pointee.value
        else { return nil }
        return String(cString: value)
    }

    /// True for an `http://` URL (any case), without allocating: it is asked once per request. Setting bit
    /// 0x20 lowercases the letters and leaves `:` and `/` as they are.
    static func isCleartext(_ url: String) -> Bool {
        let scheme = "http://".utf8
        return url.utf8.count >= scheme.count && zip(url.utf8, scheme).allSatisfy { $0 | 0x20 == $1 }
    }
}
