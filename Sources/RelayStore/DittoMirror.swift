import Foundation
import RelayCore

/// What the relay needs to turn a batch of an app's Ditto change events into mirror rows and notifications.
public struct DittoApplySettings: Sendable, Equatable {
    /// Which message is a push, to whom (collections, age limit).
    public var rule: DittoMessageRule
    /// The identity the notifications made are sent as (the app's `topic`,
    /// ``RelayCore/NotificationContent/sendAs``).
    public var sendAs: String
    /// Notifications expire `ttlSeconds` after they are made.
    public var ttlSeconds: Int
    /// Privacy mode: notifications keep no text or names ("New message").
    public var privacy: Bool
    /// Whether the relay re-reads the collections itself after `requeryRequired` (`apps[].ditto.httpAPI` is
    /// set); else an operator re-feeds them. Only what the relay says about a requery depends on it.
    public var rereadsOnRequery: Bool
    /// The grace window (`apps[].pushDelaySeconds`): deliveries are due this many SECONDS after their
    /// message's time.
    public var pushDelaySeconds: Int

    public init(
        rule: DittoMessageRule,
        sendAs: String,
        ttlSeconds: Int,
        privacy: Bool,
        rereadsOnRequery: Bool = false,
        pushDelaySeconds: Int = 0
    ) {
        self.rule = rule
        self.sendAs = sendAs
        self.ttlSeconds = ttlSeconds
        self.privacy = privacy
        self.rereadsOnRequery = rereadsOnRequery
        self.pushDelaySeconds = pushDelaySeconds
    }

    /// The settings of `app`'s stream (`apps[].ditto`), the same for the HTTP route and the Kafka consumer.
    public init(app: Configuration.App, ditto: Configuration.Ditto) {
        self.init(
            rule: ditto.rule,
            sendAs: app.topic,
            ttlSeconds: app.ttlSeconds,
            privacy: app.privacy,
            rereadsOnRequery: ditto.httpAPI != nil,
            pushDelaySeconds: app.pushDelaySeconds
        )
    }
}

/// What applying a batch did, for the HTTP answer (`applied`, `duplicates`, `ignored`, `notifications`)
/// and the metrics (events by collection kind and outcome).
public struct DittoApplyCounts: Sendable, Equatable {
    /// Events that changed the mirror (including messages that became notifications).
    public var applied = 0
    /// Events already applied (the same txnId, collection and `_id`), which changed nothing.
    public var duplicates = 0
    /// Events of no mirrored collection, of an unknown type, stale ones (a lower txnId), and messages the
    /// rule skips.
    public var ignored = 0
    /// Notifications made.
    public var notifications = 0
    /// `requeryRequired` events that raised the app's pending requery (a replayed or lower one does not).
    public var requeries = 0
    /// The highest requery txnId of those.
    public var requeryTxnId: UInt64?
    /// Events by outcome, keyed by the collection's kind name (`"\(DittoCollections.Kind.rooms)"` …, or
    /// `other` for a collection of no kind: a bounded set for metric labels).
    public var outcomes: [String: [DittoEventOutcome: Int]] = [:]
    /// The batch's first message document a push cannot read (counted `invalid` in ``outcomes`` and
    /// `ignored` in ``ignored``), nil when none.
    public var unreadable: DittoUnreadable?

    public init() {}
}

/// An event of a batch whose message document a push cannot read (``RelayCore/DittoMessageRule/Screening/
/// unreadable(field:)``): its index in the batch and the field, which name no content.
public struct DittoUnreadable: Sendable, Equatable, Encodable {
    /// The event's index in the batch, from 0.
    public var event: Int
    /// The field's key (``RelayCore/DittoMessageRule/MessageField``).
    public var field: String

    public init(event: Int, field: String) {
        self.event = event
        self.field = field
    }
}

/// The store side of Ditto's change stream: one transaction per batch, so a batch's effects and (for
/// Kafka) the offsets committed after it never disagree.
public protocol DittoMirror: Sendable {
    /// Applies `events` of `appId`, in order, in ONE transaction, arriving at `at` (the relay's clock):
    /// each document's state is replaced only by an event whose `txnId` is at least the one applied to it (an
    /// equal one with the same collection and `_id` is a duplicate), a `remove` leaves a tombstone, and a
    /// message document seen for the first time that the rule pushes becomes one notification with its
    /// deliveries. Every upsert of a message document enters its room's message index for the unread counts
    /// (``RelayCore/IndexedMessage``; one that sets `isArchived` marks it archived), and a user document's
    /// read dates later than `at` are kept as `at`. A delete document (``RelayCore/DittoMessageRule/deletion(_:now:)``)
    /// marks the deleted message archived in the index and ends its notification
    /// (``DittoMirrorRows/deleteMessage(appId:deletion:notifiedSince:at:removal:)``). A `requeryRequired` event records the app's pending
    /// requery (``DittoRequeries``), keeping the highest txnId. Concurrent appliers (HTTP and Kafka, two
    /// relays) dedupe through unique keys.
    /// - Throws: ``StoreError``; then nothing of the batch is applied.
    func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    )
        async throws -> DittoApplyCounts
}
