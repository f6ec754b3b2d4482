import Foundation
import RelayCore

/// What a push service answered to one push message request (RFC 8030 §5). Records the answer; decides
/// nothing (``WebPushDecision`` does).
public struct WebPushResponse: Sendable, Equatable {
    /// The HTTP status: 201 Created when the push service took the message.
    public var status: Int
    /// The push message's id at the push service: the last path segment of `Location` (RFC 8030 §5: the
    /// push message resource), when one was given.
    public var messageId: String?
    /// `Retry-After` (429, 503): how long to wait before trying again, as given (uncapped).
    public var retryAfter: Duration?

    public init(status: Int, messageId: String? = nil, retryAfter: Duration? = nil) {
        self.status = status
        self.messageId = messageId
        self.retryAfter = retryAfter
    }

    /// Builds the model from a status and the `Location` and `Retry-After` headers.
    /// - Parameter retryAfterHeader: read by ``RelayCore/RetryAfter/delay(_:now:)``.
    public init(status: Int, location: String?, retryAfterHeader: String?, now: Date) {
        self.init(
            status: status,
            messageId: location.flatMap(Self.lastSegment),
            retryAfter: retryAfterHeader.flatMap { RetryAfter.delay($0, now: now) }
        )
    }

    /// Whether the push service took the message: 201 (RFC 8030 §5), or 200/202 as some services answer.
    public var isAccepted: Bool { [200, 201, 202].contains(status) }

    /// The statuses push services give a meaning to, by the name a reason shows them with.
    public static let namedStatuses: [Int: String] = [
        400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 410: "Gone",
        413: "PayloadTooLarge", 429: "TooManyRequests",
    ]

    /// The status as a reason for logs and metrics: `Gone`, `PayloadTooLarge`, …, or `HTTP <status>`.
    public var reason: String { Self.namedStatuses[status] ?? "HTTP \(status)" }

    /// The last non-empty path segment of a `Location` value, at most 200 characters of it (it is only
    /// logged and stored); nil when there is none.
    private static func lastSegment(_ location: String) -> String? {
        let path = URLComponents(string: location)?.path ?? location
        guard let segment = path.split(separator: "/").last, !segment.isEmpty else { return nil }
        return String(segment.prefix(200))
    }
}
