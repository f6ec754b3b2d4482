import CCurl
import Foundation
import RelayCore

/// One-shot HTTP calls that are not pushes: POSTing feedback to an app's URL, asking an app's auth webhook,
/// GETting a JWKS document, and probing that an endpoint accepts connections (readiness).
///
/// Each call runs `curl_easy_perform` on a thread of its own, so the blocking transfer never occupies a
/// thread of Swift's cooperative pool; the caller just suspends. Meant for low volumes (a thread per call).
/// No redirects are followed, only `http` and `https` URLs are used, bodies of answers are discarded unless
/// a caller keeps them, and nothing of a request or answer body is logged. Cancelling the calling task does
/// not cut a transfer short: each is bounded by its timeouts.
public enum OutboundHTTP {
    /// POSTs `body` to `url` and returns the HTTP status of the answer (any status: the caller decides).
    ///
    /// HTTP/2 over TLS when the server offers it in ALPN, else HTTP/1.1 (`CURL_HTTP_VERSION_2TLS`); `Expect:
    /// 100-continue` is never sent.
    /// - Parameters:
    ///   - headers: `(name, value)` pairs, e.g. `("Content-Type", "application/json")`.
    ///   - timeout: the whole exchange, connect included.
    ///   - connectTimeout: TCP connect plus TLS handshake.
    ///   - caFile: a PEM CA bundle to verify the server with; nil uses the system store.
    /// - Throws: ``TransportError`` when no answer arrived (bad URL, connect, TLS, timeout, broken).
    public static func post(
        url: String,
        body: Data,
        headers: [(String, String)],
        timeout: Duration,
        connectTimeout: Duration = .seconds(5),
        caFile: String? = nil
    ) async throws(TransportError) -> Int {
        try await post(
            url: url,
            body: body,
            headers: headers,
            timeout: timeout,
            connectTimeout: connectTimeout,
            caFile: caFile,
            keepingBodyUpTo: 0
        ).status
    }

    /// ``post(url:body:headers:timeout:connectTimeout:caFile:)``, also returning the first `limit` bytes of
    /// the answer's body (for callers that need it: tools and tests, never feedback); 0 keeps nothing.
    public static func post(
        url: String,
        body: Data,
        headers: [(String, String)],
        timeout: Duration,
        connectTimeout: Duration = .seconds(5),
        caFile: String? = nil,
        keepingBodyUpTo limit: Int
    ) async throws(TransportError) -> (status: Int, body: Data) {
        try await transfer(url, body, headers, timeout, connectTimeout, caFile, limit)
    }

    /// GETs `url` and returns the HTTP status and the first `limit` bytes of the answer's body (a JWKS
    /// document, say), with the options and errors of ``post(url:body:headers:timeout:connectTimeout:caFile:)``.
    public static func get(
        url: String,
        headers: [(String, String)] = [],
        timeout: Duration,
        connectTimeout: Duration = .seconds(5),
        caFile: String? = nil,
        keepingBodyUpTo limit: Int
    ) async throws(TransportError) -> (status: Int, body: Data) {
        try await transfer(url, nil, headers, timeout, connectTimeout, caFile, limit)
    }

    /// GETs a URL of this process's own kind of listener by a loopback address (`push-relay health`) and
    /// returns the HTTP status. Over `https` the server must present a chain that verifies against
    /// `certificateFile` (the listener's own certificate, or its CA: libcurl takes any certificate there as
    /// a trust anchor), while its name is not compared with the URL's host, which is an address.
    /// - Throws: ``TransportError`` when no answer arrived (connect, TLS, timeout).
    public static func getOwn(
        url: String,
        certificateFile: String?,
        timeout: Duration
    ) async throws(TransportError) -> Int {
        try await transfer(url, nil, [], timeout, timeout, certificateFile, 0, checksHostName: certificateFile == nil)
            .status
    }

    /// One request: a POST of `body`, or a GET when it is nil; the arguments are the public calls'.
    private static func transfer(
        _ url: String,
        _ body: Data?,
        _ headers: [(String, String)],
        _ timeout: Duration,
        _ connectTimeout: Duration,
        _ caFile: String?,
        _ limit: Int,
        checksHostName: Bool = true
    ) async throws(TransportError) -> (status: Int, body: Data) {
        try await onOwnThread { () throws(TransportError) -> (status: Int, body: Data) in
            let handle = try CurlOneShot()
            handle.keepBody(upTo: limit)
            try handle.set(CURLOPT_URL, url)
            try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            try handle.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(min(connectTimeout, timeout)))
            try handle.set(CURLOPT_TIMEOUT_MS, milliseconds(timeout))
            if let caFile { try handle.set(CURLOPT_CAINFO, caFile) }
            if !checksHostName { try handle.set(CURLOPT_SSL_VERIFYHOST, 0) }
            try handle.setHeaders(headers.map { "\($0.0): \($0.1)" } + ["Expect:"])
            if let body { try handle.setBody(body) }
            try handle.perform()
            return (handle.responseCode, handle.body)
        }
    }

    /// Checks that `baseURL`'s host accepts a connection within `timeout`: TCP connect, plus the TLS handshake
    /// with certificate verification for `https` (`CURLOPT_CONNECT_ONLY`); no request is sent. The
    /// connection is closed at once, so callers should not probe one host often (APNs treats rapid
    /// connect/disconnect as abuse: Apple, "Sending notification requests to APNs").
    /// - Parameter caFile: a PEM CA bundle to verify the server with; nil uses the system store.
    /// - Throws: ``TransportError`` saying why not.
    public static func probe(baseURL: String, caFile: String? = nil, timeout: Duration) async throws(TransportError) {
        try await onOwnThread { () throws(TransportError) in
            let handle = try CurlOneShot()
            try handle.set(CURLOPT_URL, baseURL)
            try handle.set(CURLOPT_CONNECT_ONLY, 1)
            try handle.set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
            try handle.set(CURLOPT_CONNECTTIMEOUT_MS, milliseconds(timeout))
            try handle.set(CURLOPT_TIMEOUT_MS, milliseconds(timeout))
            if let caFile { try handle.set(CURLOPT_CAINFO, caFile) }
            try handle.perform()
        }
    }

    /// Runs `work` on a new thread and suspends the caller until it finished.
    private static func onOwnThread<T: Sendable>(
        _ work: @escaping @Sendable () throws(TransportError) -> T
    ) async throws(TransportError) -> T {
        let result = await withCheckedContinuation {
            (continuation: CheckedContinuation<Result<T, TransportError>, Never>) in
            let thread = Thread {
                ThreadName.setForThisThread("outbound-http")
                BrokenPipe.blockOnThisThread()
                continuation.resume(returning: Result { () throws(TransportError) -> T in try work() })
            }
            thread.start()
        }
        return try result.get()
    }

    /// A duration in whole MILLISECONDS, at least 1 (libcurl reads 0 as "no timeout").
    private static func milliseconds(_ duration: Duration) -> Int {
        let (seconds, attoseconds) = duration.components
        return max(1, Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000))
    }
}
