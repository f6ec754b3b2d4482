import CCurl
import Foundation

/// Owns one libcurl easy handle, reused for many requests. Not `Sendable`: only the driver thread touches it.
///
/// Options common to every request are set once in `init`; ``prepare(_:)`` sets the per-request ones.
final class CurlEasyHandle {
    let raw: UnsafeMutableRawPointer
    /// `CURLOPT_ERRORBUFFER`: libcurl writes its error text here (CURL_ERROR_SIZE bytes).
    private let errorBuffer: UnsafeMutablePointer<CChar>
    /// The request's header list; libcurl does not copy it, so it lives until the next request or deinit.
    private var headers: UnsafeMutablePointer<curl_slist>?
    /// The response body (an APNs error JSON, small); capped at ``maxBodyBytes``.
    var body = Data()
    static let maxBodyBytes = 16 * 1024

    /// - Throws: ``APNsTransportError`` `.other` when libcurl cannot make a handle or refuses an option.
    /// - Parameter share: the client's share handle holding the connection pool, so ``upkeep()`` on an idle
    ///   handle reaches the connections the multi handle uses.
    init(options: CurlCommonOptions, share: UnsafeMutableRawPointer) throws(APNsTransportError) {
        guard let raw = curl_easy_init() else {
            throw APNsTransportError(code: .other, message: "curl_easy_init failed")
        }
        self.raw = raw
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE))
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE))
        try check(ccurl_easy_setopt_ptr(raw, CURLOPT_ERRORBUFFER, errorBuffer), "CURLOPT_ERRORBUFFER")
        try check(ccurl_easy_setopt_long(raw, CURLOPT_NOSIGNAL, 1), "CURLOPT_NOSIGNAL")
        try check(ccurl_easy_setopt_ptr(raw, CURLOPT_SHARE, share), "CURLOPT_SHARE")
        try check(ccurl_easy_setopt_long(raw, CURLOPT_POST, 1), "CURLOPT_POST")
        try check(
            ccurl_easy_setopt_long(raw, CURLOPT_HTTP_VERSION, options.httpVersion),
            "CURLOPT_HTTP_VERSION"
        )
        try check(ccurl_easy_setopt_long(raw, CURLOPT_PIPEWAIT, 1), "CURLOPT_PIPEWAIT")
        try check(
            ccurl_easy_setopt_long(raw, CURLOPT_CONNECTTIMEOUT_MS, options.connectTimeoutMs),
            "CURLOPT_CONNECTTIMEOUT_MS"
        )
        // libcurl closes connections idle for 118 s by default; APNs wants them kept for hours.
        try check(ccurl_easy_setopt_long(raw, CURLOPT_MAXAGE_CONN, 24 * 3600), "CURLOPT_MAXAGE_CONN")
        if let ping = options.upkeepIntervalMs {
            // HTTP/2 PING via curl_easy_upkeep. Measured with libcurl 8.14.1: the PING is queued in the
            // connection's send buffer and reaches the wire only with the next request, so TCP keep-alive
            // probes at the same interval are what keeps an idle connection visibly alive.
            try check(ccurl_easy_setopt_long(raw, CURLOPT_UPKEEP_INTERVAL_MS, ping), "CURLOPT_UPKEEP_INTERVAL_MS")
            let seconds = max(1, ping / 1000)
            try check(ccurl_easy_setopt_long(raw, CURLOPT_TCP_KEEPALIVE, 1), "CURLOPT_TCP_KEEPALIVE")
            try check(ccurl_easy_setopt_long(raw, CURLOPT_TCP_KEEPIDLE, seconds), "CURLOPT_TCP_KEEPIDLE")
            try check(ccurl_easy_setopt_long(raw, CURLOPT_TCP_KEEPINTVL, seconds), "CURLOPT_TCP_KEEPINTVL")
        }
        try check(ccurl_easy_setopt_write(raw, CURLOPT_WRITEFUNCTION, CurlCallbacks.write), "CURLOPT_WRITEFUNCTION")
        try check(
            ccurl_easy_setopt_ptr(raw, CURLOPT_WRITEDATA, Unmanaged.passUnretained(self).toOpaque()),
            "CURLOPT_WRITEDATA"
        )
        if let caFile = options.caFile {
            try check(ccurl_easy_setopt_string(raw, CURLOPT_CAINFO, caFile), "CURLOPT_CAINFO")
        }
        if let certificate = options.certificate {
            try check(ccurl_easy_setopt_string(raw, CURLOPT_SSLCERT, certificate.path), "CURLOPT_SSLCERT")
            try check(ccurl_easy_setopt_string(raw, CURLOPT_SSLCERTTYPE, certificate.type), "CURLOPT_SSLCERTTYPE")
            if let key = certificate.keyPath {
                try check(ccurl_easy_setopt_string(raw, CURLOPT_SSLKEY, key), "CURLOPT_SSLKEY")
            }
            if let password = certificate.password {
                try check(ccurl_easy_setopt_string(raw, CURLOPT_KEYPASSWD, password), "CURLOPT_KEYPASSWD")
            }
        }
    }

    deinit {
        curl_easy_cleanup(raw)
        if let headers { curl_slist_free_all(headers) }
        errorBuffer.deallocate()
    }

    /// Sets what differs per request: URL, headers, body (copied by libcurl), timeout in milliseconds.
    /// - Throws: ``APNsTransportError`` `.other` when libcurl refuses an option or runs out of memory.
    func prepare(_ request: APNsClient.Request, timeoutMs: Int) throws(APNsTransportError) {
        errorBuffer[0] = 0
        body.removeAll(keepingCapacity: true)
        if let headers { curl_slist_free_all(headers) }
        headers = nil
        var list: UnsafeMutablePointer<curl_slist>?
        for header in request.headers {
            guard let next = curl_slist_append(list, header) else {
                if let list { curl_slist_free_all(list) }
                throw APNsTransportError(code: .other, message: "curl_slist_append failed")
            }
            list = next
        }
        headers = list
        try check(ccurl_easy_setopt_string(raw, CURLOPT_URL, request.url), "CURLOPT_URL")
        try check(ccurl_easy_setopt_slist(raw, CURLOPT_HTTPHEADER, list), "CURLOPT_HTTPHEADER")
        try check(ccurl_easy_setopt_long(raw, CURLOPT_POSTFIELDSIZE, request.body.count), "CURLOPT_POSTFIELDSIZE")
        let copied = request.body.withUnsafeBytes { bytes in
            ccurl_easy_setopt_ptr(raw, CURLOPT_COPYPOSTFIELDS, UnsafeMutableRawPointer(mutating: bytes.baseAddress))
        }
        try check(copied, "CURLOPT_COPYPOSTFIELDS")
        try check(ccurl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, timeoutMs), "CURLOPT_TIMEOUT_MS")
    }

    /// Sets the timeout alone (for a resend on the same handle), in milliseconds.
    func setTimeout(ms: Int) {
        errorBuffer[0] = 0
        body.removeAll(keepingCapacity: true)
        _ = ccurl_easy_setopt_long(raw, CURLOPT_TIMEOUT_MS, ms)
    }

    /// Sends an HTTP/2 PING on the pool's connections idle for `CURLOPT_UPKEEP_INTERVAL_MS`
    /// (`curl_easy_upkeep`); call only while this handle is not in a transfer.
    func upkeep() { _ = curl_easy_upkeep(raw) }

    /// libcurl's error text for the last transfer, or `curl_easy_strerror(code)` when it wrote none.
    func errorText(_ code: CURLcode) -> String {
        errorBuffer[0] != 0 ? String(cString: errorBuffer) : String(cString: curl_easy_strerror(code))
    }

    /// The HTTP status of the last transfer; 0 when none arrived.
    var responseCode: Int {
        var code = 0
        _ = ccurl_easy_getinfo_long(raw, CURLINFO_RESPONSE_CODE, &code)
        return code
    }

    /// The value of the last response's header `name` (case-insensitive), read with `curl_easy_header`.
    func responseHeader(_ name: String) -> String? {
        var header: UnsafeMutablePointer<curl_header>?
        guard curl_easy_header(raw, name, 0, UInt32(CURLH_HEADER), -1, &header) == CURLHE_OK,
            let value = header?.pointee.value
        else { return nil }
        return String(cString: value)
    }

    private func check(_ code: CURLcode, _ option: String) throws(APNsTransportError) {
        guard code != CURLE_OK else { return }
        throw APNsTransportError(
            code: .other,
            curlCode: Int(code.rawValue),
            message: "curl_easy_setopt(\(option)): \(String(cString: curl_easy_strerror(code)))"
        )
    }
}

/// The options every easy handle of one client shares.
struct CurlCommonOptions: Sendable {
    struct Certificate: Sendable {
        var path: String
        /// `PEM` or `P12`.
        var type: String
        var keyPath: String?
        var password: String?
    }
    var httpVersion: Int
    var connectTimeoutMs: Int
    var upkeepIntervalMs: Int?
    var caFile: String?
    var certificate: Certificate?
}

/// libcurl callbacks; C function pointers cannot capture, so the handle comes back as user data.
enum CurlCallbacks {
    static let write: @convention(c) (UnsafeMutablePointer<CChar>, Int, Int, UnsafeMutableRawPointer?) -> Int = {
        data,
        size,
        count,
        user in
        let bytes = size * count
        guard let user else { return bytes }
        let handle = Unmanaged<CurlEasyHandle>.fromOpaque(user).takeUnretainedValue()
        let room = max(0, CurlEasyHandle.maxBodyBytes - handle.body.count)
        if room > 0 {
            UnsafeRawPointer(data).withMemoryRebound(to: UInt8.self, capacity: bytes) {
                handle.body.append($0, count: min(room, bytes))
            }
        }
        return bytes
    }
}
