import Foundation
import RelayCore

/// A VAPID `sub` claim: how the push service can reach the application server's operator, a `mailto:`
/// address or an `https:` URL (RFC 8292 §2.1). The relay takes it from `apps[].webPush.subject`; the mock
/// checks the one it receives with the same rule.
public struct VAPIDSubject: Sendable, Hashable, CustomStringConvertible {
    /// The claim as given.
    public let value: String

    /// The longest subject accepted, in UTF-8 bytes: it travels in every request's `Authorization` header.
    public static let maxLength = 512

    /// Checks `value`: `mailto:` then an address with text around one `@`, or an absolute `https:` URL with a
    /// host; printable ASCII without spaces, at most ``maxLength`` bytes.
    /// - Throws: ``WebPushError`` `.invalidSubject` saying what is wrong.
    public init(validating value: String) throws(WebPushError) {
        guard !value.isEmpty, value.utf8.count <= Self.maxLength,
            value.isVisibleASCII
        else {
            throw WebPushError(
                .invalidSubject,
                "the VAPID subject must be a mailto: or https: URI of at most \(Self.maxLength) printable characters"
            )
        }
        let lower = value.lowercased()
        if lower.hasPrefix("mailto:") {
            let parts = value.dropFirst("mailto:".count).split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw WebPushError(
                    .invalidSubject,
                    "the VAPID subject mailto: needs an address (mailto:ops@example.com)"
                )
            }
        } else if lower.hasPrefix("https:") {
            guard let components = URLComponents(string: value), let host = components.host, !host.isEmpty,
                value.dropFirst("https:".count).hasPrefix("//")
            else {
                throw WebPushError(.invalidSubject, "the VAPID subject https: needs a URL with a host")
            }
        } else {
            throw WebPushError(.invalidSubject, "the VAPID subject must start with mailto: or https: (RFC 8292 §2.1)")
        }
        self.value = value
    }

    public var description: String { value }
}
