import Foundation
import RelayCore
import RelayStore

/// A retired token as the relay reports it, in `GET /v1/dead-tokens` and in the feedback POSTed to an app's
/// `feedbackURL`: `{"appId"?,"token","platform","userId","environment"?,"reason","apnsTimestamp","retiredAt"}`.
/// Times are RFC 3339 (UTC, milliseconds); `token` is the full token (lowercase hex for APNs); `environment`
/// is the token's scope (APNs' environment; none for a service with one); `apnsTimestamp` is since when the
/// token is invalid where its service says (``RelayCore/PushToken/reportsInvalidSince``: APNs), else null;
/// `appId` only in feedback (the listing is already scoped to the caller's app).
public struct DeadTokenView: Encodable {
    var appId: String?
    var token: String
    var platform: String
    var userId: String
    var environment: String?
    var reason: String
    var apnsTimestamp: String?
    var retiredAt: String

    /// A retired device, for the listing.
    public init(_ device: Device) {
        token = device.token.value
        platform = device.platform.rawValue
        userId = device.userId
        environment = device.token.scope
        reason = device.retiredReason ?? ""
        apnsTimestamp = device.token.reportsInvalidSince ? device.invalidSince.map(Timestamp.rfc3339) : nil
        retiredAt = Timestamp.rfc3339(device.retiredAt ?? device.updatedAt)
    }

    /// A queued retirement, for the feedback POST.
    init(_ job: FeedbackJob) {
        appId = job.appId
        token = job.token.value
        platform = job.token.platform.rawValue
        userId = job.userId
        environment = job.token.scope
        reason = job.reason
        apnsTimestamp = job.token.reportsInvalidSince ? job.invalidSince.map(Timestamp.rfc3339) : nil
        retiredAt = Timestamp.rfc3339(job.retiredAt)
    }

    enum CodingKeys: String, CodingKey {
        case appId, token, platform, userId, environment, reason, apnsTimestamp, retiredAt
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(appId, forKey: .appId)
        try c.encode(token, forKey: .token)
        try c.encode(platform, forKey: .platform)
        try c.encode(userId, forKey: .userId)
        try c.encodeIfPresent(environment, forKey: .environment)
        try c.encode(reason, forKey: .reason)
        try c.encode(apnsTimestamp, forKey: .apnsTimestamp)  // null, not left out
        try c.encode(retiredAt, forKey: .retiredAt)
    }

    /// The feedback body bytes: sorted keys, slashes unescaped.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
