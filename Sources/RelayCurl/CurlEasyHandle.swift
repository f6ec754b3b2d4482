import CCurl
import Foundation
import RelayCore

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
    /// Whether requests connect only to public addresses unless ``CurlRequest/trustedHost``.
    private let publicAddressesOnly: Bool
    /// Whether the current request may connect only to public addresses (``CurlCommonOptions/UntrustedURLs``
    /// and not ``CurlRequest/trustedHost``).
    private var checksAddresses = false
    /// Whether the current request's open-socket callback refused an address.
    private var addressRefused = false
    /// With ``CurlCommonOptions/UntrustedURLs``: the CA bundle that verifies trusted hosts only (the
    /// options' `caFile`), libcurl's built-in bundle that verifies every other host, and the one set now.
    private var trustedCAFile: String?
    private var defaultCAFile: String?
    private var caFile: String?

    /// - Throws: ``TransportError`` `.other` when libcurl cannot make a handle or refuses an option.
    init(options: CurlCommonOptions) throws(TransportError) {
        publicAddressesOnly = options.untrustedURLs != nil
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
        if let caFile = options.caFile, options.untrustedURLs == nil { try set(CURLOPT_CAINFO, caFile) }
        if let untrusted = options.untrustedURLs {
            trustedCAFile = options.caFile
            var builtIn: UnsafeMutableRawPointer?
            if ccurl_easy_getinfo_ptr(raw, CURLINFO_CAINFO, &builtIn) == CURLE_OK, let builtIn {
                defaultCAFile = String(cString: builtIn.assumingMemoryBound(to: CChar.self))
            }
            caFile = defaultCAFile
            bodyLimit = untrusted.maxResponseBytes
            abortsOverLimit = true
            try set(CURLOPT_FOLLOWLOCATION, 0)
            try set(CURLOPT_PROTOCOLS_STR, untrusted.protocols)
            // An empty proxy overrides http_proxy/https_proxy/all_proxy: the address check must see the host.
            try set(CURLOPT_PROXY, "")
            try check(
                ccurl_easy_setopt_opensocket(raw, CURLOPT_OPENSOCKETFUNCTION, Self.openSocket),
                "OPENSOCKETFUNCTION"
            )
            try check(
                ccurl_easy_setopt_ptr(raw, CURLOPT_OPENSOCKETDATA, Unmanaged.passUnretained(self).toOpaque()),
                "CURLOPT_OPENSOCKETDATA"
            )
        }
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
        checksAddresses = publicAddressesOnly && !request.trustedHost
        addressRefused = false
        if publicAddressesOnly {
            let wanted = request.trustedHost ? trustedCAFile ?? defaultCAFile : defaultCAFile
            if wanted != caFile {
                try check(ccurl_easy_setopt_string(raw, CURLOPT_CAINFO, wanted), "CURLOPT_CAINFO")
                caFile = wanted
            }
        }
        try setHeaders(request.headers, shared: request.sharedHeaders)
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

    /// The error of a failed transfer: an address refused by the open-socket callback
    /// (``TransportError/Code/addressRefused``) and a body aborted over its limit
    /// (``TransportError/Code/responseTooLarge``) named as such, any other as libcurl classifies it.
    func transportError(_ result: CURLcode) -> TransportError {
        if addressRefused && result == CURLE_COULDNT_CONNECT {
            return TransportError(
                code: .addressRefused,
                curlCode: Int(result.rawValue),
                message: "the host resolves to no public address"
            )
        }
        if overLimit && result == CURLE_WRITE_ERROR {
            return TransportError(
                code: .responseTooLarge,
                curlCode: Int(result.rawValue),
                message: "the answer's body exceeds \(bodyLimit) bytes"
            )
        }
        return TransportError(curl: result, text: errorText(result), responseCode: responseCode)
    }

    /// `CURLOPT_OPENSOCKETFUNCTION`: opens the socket for an address libcurl is about to connect to, or
    /// refuses one that is not public (``RelayCore/IPAddress/isPublic``) when the request checks
    /// addresses. Runs on the driver thread, inside `curl_multi_perform`.
    private static let openSocket: OpenSocket = { user, _, address in
        guard let user else { return CURL_SOCKET_BAD }
        let handle = Unmanaged<CurlEasyHandle>.fromOpaque(user).takeUnretainedValue()
        if handle.checksAddresses {
            guard let ip = ipAddress(address), ip.isPublic else {
                handle.addressRefused = true
                return CURL_SOCKET_BAD
            }
        }
        return socket(address.pointee.family, address.pointee.socktype, address.pointee.protocol)
    }

    /// `curl_opensocket_callback`: user data, purpose, the address to connect to; a socket or
    /// `CURL_SOCKET_BAD`.
    private typealias OpenSocket =
        @convention(c) (UnsafeMutableRawPointer?, curlsocktype, UnsafeMutablePointer<curl_sockaddr>) -> curl_socket_t

    /// The IP address of a `curl_sockaddr` (IPv4 or IPv6); nil for another family.
    private static func ipAddress(_ address: UnsafeMutablePointer<curl_sockaddr>) -> IPAddress? {
        let family = address.pointee.family, length = Int(address.pointee.addrlen)
        // The sockaddr lies at `addr` and runs `addrlen` bytes, past the struct's own `struct sockaddr`.
        let socketAddress = UnsafeRawPointer(address) + MemoryLayout<curl_sockaddr>.offset(of: \.addr)!
        if family == AF_INET, length >= MemoryLayout<sockaddr_in>.size {
            let v4 = socketAddress.loadUnaligned(as: sockaddr_in.self)
            return IPAddress(networkBytes: withUnsafeBytes(of: v4.sin_addr) { Array($0) })
        }
        if family == AF_INET6, length >= MemoryLayout<sockaddr_in6>.size {
            let v6 = socketAddress.loadUnaligned(as: sockaddr_in6.self)
            return IPAddress(networkBytes: withUnsafeBytes(of: v6.sin6_addr) { Array($0) })
        }
        return nil
    }

    /// True for an `http://` URL (any case), without allocating: it is asked once per request. Setting bit
    /// 0x20 lowercases the letters and leaves `:` and `/` as they are.
    static func isCleartext(_ url: String) -> Bool {
        let scheme = "http://".utf8
        return url.utf8.count >= scheme.count && zip(url.utf8, scheme).allSatisfy { $0 | 0x20 == $1 }
    }
}
