import CCurl

/// What the linked libcurl can do: the relay refuses to start without HTTP/2 and warns below 8.0
/// (7.88 resets every finished stream and breaks h2c reuse).
public struct LibcurlInfo: Sendable, Equatable {
    /// libcurl's version, e.g. `8.14.1`.
    public var version: String
    /// libcurl's version as `0xXXYYZZ` (major, minor, patch).
    public var versionNumber: UInt32
    /// True when libcurl was built with HTTP/2 (`CURL_VERSION_HTTP2`).
    public var hasHTTP2: Bool
    /// The nghttp2 version libcurl uses, e.g. `1.52.0`; nil without HTTP/2.
    public var nghttp2Version: String?
    /// The TLS library, e.g. `OpenSSL/3.0.15`.
    public var sslVersion: String?

    /// True for libcurl 8.0 or later.
    public var isAtLeast8: Bool { versionNumber >= 0x08_00_00 }

    /// The libcurl this process linked.
    public static let current: LibcurlInfo = {
        let info = ccurl_version_info().pointee
        return LibcurlInfo(
            version: info.version.map { String(cString: $0) } ?? "unknown",
            versionNumber: UInt32(info.version_num),
            hasHTTP2: info.features & Int32(CURL_VERSION_HTTP2) != 0,
            nghttp2Version: info.nghttp2_version.map { String(cString: $0) },
            sslVersion: info.ssl_version.map { String(cString: $0) }
        )
    }()

    /// One line for `push-relay version`: `libcurl 8.14.1 (HTTP/2 via nghttp2 1.52.0, OpenSSL/3.0.15)`.
    public var summary: String {
        let http2 = hasHTTP2 ? "HTTP/2 via nghttp2 \(nghttp2Version ?? "?")" : "NO HTTP/2"
        return "libcurl \(version) (\(http2)" + (sslVersion.map { ", \($0)" } ?? "") + ")"
    }
}
