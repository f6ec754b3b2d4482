import Foundation
import RelayCore
import RelayCrypto

/// A push subscription's endpoint: the capability URL the push service gave the browser, checked to be an
/// absolute `https` URL with a host (RFC 8030 §4), or plain `http` when the caller allows it for a mock.
///
/// The URL is a bearer capability: whoever knows it can push to the subscription. So logs get only
/// ``logDescription`` (the origin and the last characters), and the device's identity is ``deviceToken``,
/// a hash. Whether the host resolves to a public address is the transport's check at connect time.
public struct PushEndpoint: Sendable, Hashable, CustomStringConvertible {
    /// The endpoint in one spelling per URL: ``origin`` (scheme and host lowercase, no default port, no
    /// trailing dot), then the path as given (`/` when empty) and the query as given when it is not empty;
    /// a fragment, which never reaches the server, is dropped. Two spellings of one subscription
    /// (`HTTPS://Push.example.net:443/x?#y`) are one device.
    public let text: String
    /// The URL of ``text``.
    public let url: URL
    /// `scheme://host[:port]`, lowercase, the port left out when it is the scheme's default (443 for https,
    /// 80 for http) and the host's trailing dot when it has one (`push.example.net.` names the same host):
    /// the VAPID `aud` (RFC 8292 §2) and the key for per-origin limits, one for each host however spelled.
    public let origin: String

    /// The longest endpoint accepted, in UTF-8 bytes. Push services' endpoints are a few hundred bytes;
    /// 2,048 leaves room and bounds what a client can make the relay store.
    public static let maxLength = 2048

    /// Characters kept from the end of the endpoint in ``logDescription``.
    public static let logSuffixLength = 6

    /// Checks `text` and reads its origin.
    /// - Parameter allowingHTTP: accept plain `http` (a mock push service the app configures); otherwise only
    ///   `https` is taken.
    /// - Throws: ``WebPushError`` `.invalidEndpoint` saying what is wrong: empty, longer than ``maxLength``,
    ///   characters outside printable ASCII, not an absolute URL, another scheme, no host, user info, a port
    ///   out of range, and (unless `allowingHTTP`) a host that is not a public host name
    ///   (``RelayCore/PublicHostName``: no IP address, single label or local name).
    public init(validating text: String, allowingHTTP: Bool = false) throws(WebPushError) {
        func refuse(_ why: String) -> WebPushError { WebPushError(.invalidEndpoint, "endpoint \(why)") }
        guard !text.isEmpty else { throw refuse("is empty") }
        guard text.utf8.count <= Self.maxLength else { throw refuse("is longer than \(Self.maxLength) bytes") }
        guard text.isVisibleASCII else {
            throw refuse("must be printable ASCII without spaces (a URL as the push service gave it)")
        }
        guard let components = URLComponents(string: text), let url = components.url,
            let scheme = components.scheme?.lowercased()
        else { throw refuse("is not an absolute URL") }
        let defaultPort: Int
        switch scheme {
        case "https": defaultPort = 443
        case "http" where allowingHTTP: defaultPort = 80
        default: throw refuse("must be an https URL")
        }
        // The host as written (Foundation's `host` decodes an internationalized name, `xn--…`, to Unicode,
        // which is neither what the push service's certificate and VAPID audience name nor printable ASCII).
        guard let host = (components.encodedHost ?? components.host)?.lowercased(), !host.isEmpty,
            !host.contains("%"), text.dropFirst(scheme.count).hasPrefix("://")
        else { throw refuse("must name a host (scheme://host/...)") }
        guard components.user == nil, components.password == nil else {
            throw refuse("must not carry a user name or password")
        }
        // A push service is reached by its name: an address, a single label or a local name is a host of the
        // relay's own network, which only the app's mock (plain http allowed) may be.
        if !allowingHTTP, let problem = PublicHostName.problem(host) {
            throw refuse("host \(problem)")
        }
        if let port = components.port, !(1...65535).contains(port) { throw refuse("has a port out of range") }
        if components.hasUnreadablePort(in: text) { throw refuse("has a port out of range") }
        let port = components.port.flatMap { $0 == defaultPort ? nil : ":\($0)" } ?? ""
        let name = host.hasSuffix(".") ? host.dropLast() : host[...]
        let origin = "\(scheme)://\(name)\(port)"
        let path = components.percentEncodedPath.isEmpty ? "/" : components.percentEncodedPath
        let query = components.percentEncodedQuery.flatMap { $0.isEmpty ? nil : "?" + $0 } ?? ""
        self.origin = origin
        self.text = origin + path + query
        self.url = URL(string: self.text) ?? url
    }

    /// The device token the relay knows a web device by: `web-` and base64url (no padding) of SHA-256 of the
    /// endpoint's bytes. Stable for a subscription, reveals nothing of the capability URL; used for DELETE,
    /// `senderDeviceToken`, dead tokens, feedback and logs.
    public var deviceToken: String { Self.deviceToken(endpoint: text) }

    /// The token a device registered with the endpoint spelled as `given` had before endpoints were kept in
    /// one spelling (the hash of the text as given); nil when that is ``deviceToken``.
    public func formerDeviceToken(given: String) -> String? {
        given == text ? nil : Self.deviceToken(endpoint: given)
    }

    /// ``deviceToken`` of an endpoint's text, without checking it (to find a stored device by its endpoint).
    public static func deviceToken(endpoint: String) -> String {
        WebPushToken.prefix + Digest.sha256(Data(endpoint.utf8)).base64URLEncodedString()
    }

    /// What a log may show: the origin and the last ``logSuffixLength`` characters of the endpoint's path
    /// (`https://fcm.googleapis.com/…Xy3_q9`), at most a quarter of the path, so that a short path (a
    /// capability all the same) is never shown whole.
    public var logDescription: String {
        let afterScheme = text.range(of: "://").map { text[$0.upperBound...] } ?? text[...]
        let path = afterScheme.drop { $0 != "/" }
        return "\(origin)/…\(path.suffix(min(Self.logSuffixLength, path.count / 4)))"
    }

    /// ``logDescription``: interpolating an endpoint never prints the capability URL.
    public var description: String { logDescription }
}
