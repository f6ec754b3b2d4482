import Foundation
import RelayCore
import RelayStore

/// A retired token as the relay reports it, in `GET /v1/dead-tokens` and in the feedback POSTed to an app's
/// `feedbackURL`: `{"appId"?,"token","userId","environment","reason","apnsTimestamp","retiredAt"}`. Times are
/// RFC 3339 (UTC, milliseconds); `apnsTimestamp` is null when APNs gave none; `token` is the full lowercase
/// hex; `appId` only in feedback (the listing is already scoped to the caller's app).
struct DeadTokenView: Encodable {
    var appId: String?
    var token: String
    var userId: String
    var environment: String
    var reason: String
    var apnsTimestamp: String?
    var retiredAt: String

    /// A retired device, for the listing.
    init(_ device: Device) {
        token = device.token.hex
        userId = device.userId
        environment = device.environment.rawValue
        reason = device.retiredReason ?? ""
        apnsTimestamp = device.apnsTimestamp.map(Timestamp.rfc3339)
        retiredAt = Timestamp.rfc3339(device.retiredAt ?? device.updatedAt)
    }

    /// A queued retirement, for the feedback POST.
    init(_ job: FeedbackJob) {
        appId = job.appId
        token = job.token.hex
        userId = job.userId
        environment = job.environment.rawValue
        reason = job.reason
        apnsTimestamp = job.apnsTimestamp.map(Timestamp.rfc3339)
        retiredAt = Timestamp.rfc3339(job.retiredAt)
    }

    enum CodingKeys: String, CodingKey { case appId, token, userId, environment, reason, apnsTimestamp, retiredAt }

    func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encodeIfPresent(appId, forKey: .appId)
        try c.encode(token, forKey: .token)
        try c.encode(userId, forKey: .userId)
        try c.encode(environment, forKey: .environment)
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
