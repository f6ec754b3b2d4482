import Foundation
import RelayCore
import RelayStore

/// The JSON POSTed to an app's `feedbackURL` for one retired token:
/// `{"appId","token","userId","environment","reason","apnsTimestamp","retiredAt"}`, times RFC 3339 (UTC,
/// milliseconds), `apnsTimestamp` null when APNs gave none, `token` the full lowercase hex.
struct FeedbackMessage: Encodable {
    var appId: String
    var token: String
    var userId: String
    var environment: String
    var reason: String
    var apnsTimestamp: String?
    var retiredAt: String

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
        try c.encode(appId, forKey: .appId)
        try c.encode(token, forKey: .token)
        try c.encode(userId, forKey: .userId)
        try c.encode(environment, forKey: .environment)
        try c.encode(reason, forKey: .reason)
        try c.encode(apnsTimestamp, forKey: .apnsTimestamp)  // null, not left out
        try c.encode(retiredAt, forKey: .retiredAt)
    }

    /// The body bytes: sorted keys, slashes unescaped.
    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
