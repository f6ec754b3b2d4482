import Foundation
import RelayCore

extension SQLiteStore {
    public func claimDueDeliveries(
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        excludingApps: [String]
    ) async throws
        -> [DeliveryJob]
    {
        guard limit > 0 else { return [] }
        let excluded = String(decoding: try JSONSerialization.data(withJSONObject: excludingApps), as: UTF8.self)
        let leaseUntil = now.addingTimeInterval(TimeInterval(leaseSeconds))
        return try db.transaction {
            var jobs: [DeliveryJob] = []
            var payloads: [String: Data] = [:]  // one buffer per notification, shared by its jobs
            try db.withStatement(
                """
                SELECT dl.id, dl.notification_id, dl.app_id, dl.token, d.environment, NULL, dl.attempts,
                    n.topic, n.push_type, n.priority, n.expiration, n.collapse_id, n.payload, d.updated_at
                FROM deliveries AS dl
                JOIN notifications AS n ON n.id = dl.notification_id
                JOIN devices AS d ON d.app_id = dl.app_id AND d.token = dl.token
                WHERE dl.status = 'pending' AND dl.next_attempt_at <= ?1
                    AND (dl.lease_until IS NULL OR dl.lease_until < ?1)
                    AND dl.app_id NOT IN (SELECT value FROM json_each(?3))
                ORDER BY dl.next_attempt_at, dl.id
                LIMIT ?2
                """
            ) { row in
                try row.bind(1, now)
                try row.bind(2, limit)
                try row.bind(3, excluded)
                while try row.step() {
                    let notificationId = row.string(1)
                    let notification = try Self.readUUID(notificationId)
                    let payload: Data
                    if let shared = payloads[notificationId] {
                        payload = shared
                    } else {
                        payload = row.data(12)
                        payloads[notificationId] = payload
                    }
                    guard let environment = APNsEnvironment(rawValue: row.string(4)),
                        let pushType = PushType(rawValue: row.string(8)),
                        let priority = Priority(rawValue: row.int(9))
                    else {
                        throw StoreError(code: .invalidData, message: "delivery \(row.int64(0)) has invalid headers")
                    }
                    jobs.append(
                        DeliveryJob(
                            deliveryId: row.int64(0),
                            notificationId: notification,
                            appId: row.string(2),
                            token: try Self.readToken(row.string(3)),
                            environment: environment,
                            apnsId: APNsIdentifier.forDelivery(row.int64(0), of: notification),
                            attempts: row.int(6),
                            topic: row.string(7),
                            pushType: pushType,
                            priority: priority,
                            expiration: row.optionalInt(10),
                            collapseId: row.optionalString(11),
                            payload: payload,
                            deviceRegisteredAt: row.date(13)
                        )
                    )
                }
            }
            for job in jobs {
                try db.withStatement("UPDATE deliveries SET lease_until = ?2 WHERE id = ?1") {
                    try $0.bind(1, job.deliveryId)
                    try $0.bind(2, leaseUntil)
                    try $0.run()
                }
            }
            return jobs
        }
    }

    public func releaseLeases() async throws {
        try db.execute("UPDATE deliveries SET lease_until = NULL WHERE lease_until IS NOT NULL")
        try db.execute("UPDATE feedback SET lease_until = NULL WHERE lease_until IS NOT NULL")
    }

    public func pendingDeliveryCount() async throws -> Int {
        Int(try db.scalar("SELECT count(*) FROM deliveries WHERE status = 'pending'"))
    }

    public func complete(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        guard !results.isEmpty else { return }
        try db.transaction {
            for (deliveryId, outcome) in results {
                try apply(outcome, to: deliveryId, at: at)
            }
        }
    }

    /// Records one outcome (inside ``complete(_:at:)``'s transaction).
    private func apply(_ outcome: DeliveryOutcome, to deliveryId: Int64, at: Date) throws {
        let status: DeliveryStatus
        var lastStatus: Int?
        var lastReason: String?
        var sentAt: Date?
        var nextAttemptAt: Date?
        switch outcome {
        case .sent:
            (status, lastStatus, sentAt) = (.sent, 200, at)
        case .retry(let retryAt, let code, let reason):
            (status, lastStatus, lastReason, nextAttemptAt) = (.pending, code, reason, retryAt)
        case .failed(let code, let reason):
            (status, lastStatus, lastReason) = (.failed, code, reason)
        case .retired(let code, let reason, _):
            (status, lastStatus, lastReason) = (.retired, code, reason)
        case .unlinkTopic(_, let code, let reason):
            (status, lastStatus, lastReason) = (.failed, code, reason)
        }
        let device = try db.withStatement(
            """
            UPDATE deliveries SET status = ?2, attempts = attempts + 1, last_status = ?3, last_reason = ?4,
                sent_at = coalesce(?5, sent_at), next_attempt_at = ?6, lease_until = NULL, updated_at = ?7
            WHERE id = ?1
            RETURNING app_id, token
            """
        ) { row -> (appId: String, token: String)? in
            try row.bind(1, deliveryId)
            try row.bind(2, status.rawValue)
            try row.bind(3, lastStatus)
            try row.bind(4, lastReason)
            try row.bind(5, sentAt)
            try row.bind(6, nextAttemptAt)
            try row.bind(7, at)
            guard try row.step() else { return nil }
            let device = (row.string(0), row.string(1))
            try row.run()
            return device
        }
        guard let device else { return }
        switch outcome {
        case .retired(let code, let reason, let apnsTimestamp):
            try retireDevice(device, status: code, reason: reason, apnsTimestamp: apnsTimestamp, at: at)
        case .unlinkTopic(let topic, let code, let reason):
            try unlinkTopic(topic, device: device, status: code, reason: reason, at: at)
        case .sent, .retry, .failed:
            break
        }
    }

    /// Retires a live device (unless it registered again after `apnsTimestamp`) and its pending deliveries,
    /// and queues its feedback when the app has a feedback URL (``FeedbackPolicy``), in the same transaction.
    private func retireDevice(
        _ device: (appId: String, token: String),
        status: Int,
        reason: String,
        apnsTimestamp: Date?,
        at: Date
    ) throws {
        try db.withStatement(
            """
            UPDATE devices SET state = 'retired', retired_at = ?3, retired_reason = ?4, apns_timestamp = ?5
            WHERE app_id = ?1 AND token = ?2 AND state = 'live' AND (?5 IS NULL OR updated_at <= ?5)
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, at)
            try $0.bind(4, reason)
            try $0.bind(5, apnsTimestamp)
            try $0.run()
        }
        guard db.changes > 0 else { return }
        try enqueueFeedback(appId: device.appId, token: device.token, at: at)
        try db.withStatement(
            """
            UPDATE deliveries SET status = 'retired', last_status = ?3, last_reason = ?4, updated_at = ?5,
                next_attempt_at = NULL, lease_until = NULL
            WHERE app_id = ?1 AND token = ?2 AND status = 'pending'
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, status)
            try $0.bind(4, reason)
            try $0.bind(5, at)
            try $0.run()
        }
    }

    /// Adds `topic` to the device's unlinked topics and fails its pending deliveries for that topic.
    private func unlinkTopic(
        _ topic: String,
        device: (appId: String, token: String),
        status: Int,
        reason: String,
        at: Date
    ) throws {
        try db.withStatement(
            """
            UPDATE devices SET unlinked_topics = json_insert(unlinked_topics, '$[#]', ?3)
            WHERE app_id = ?1 AND token = ?2
                AND NOT EXISTS (SELECT 1 FROM json_each(devices.unlinked_topics) WHERE value = ?3)
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, topic)
            try $0.run()
        }
        try db.withStatement(
            """
            UPDATE deliveries SET status = 'failed', last_status = ?4, last_reason = ?5, updated_at = ?6,
                next_attempt_at = NULL, lease_until = NULL
            WHERE app_id = ?1 AND token = ?2 AND status = 'pending'
                AND (SELECT topic FROM notifications WHERE id = deliveries.notification_id) = ?3
            """
        ) {
            try $0.bind(1, device.appId)
            try $0.bind(2, device.token)
            try $0.bind(3, topic)
            try $0.bind(4, status)
            try $0.bind(5, reason)
            try $0.bind(6, at)
            try $0.run()
        }
    }
}
