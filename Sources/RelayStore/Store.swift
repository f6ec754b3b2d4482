import Foundation
import RelayCore

/// Where PushRelay keeps devices, room memberships, notifications and their deliveries (the outbox).
///
/// Every call is scoped by `appId` where it takes one: no call reads or changes another app's rows. The
/// dispatcher calls (``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)``, ``complete(_:at:)``,
/// ``releaseLeases(owner:)``) and the metrics calls work across apps. Times are kept with MILLISECOND precision.
/// Implementations: `SQLiteStore` (module RelaySQLite) and `PostgresStore` (module RelayPostgres).
///
/// Several relays may share one store: the provider tokens (``RelayCore/ProviderTokenCache``), the webhook
/// rate limits and the periodic jobs' schedule live in it, so they hold across instances.
///
/// Several relays may share one store. Each is an instance with its own id (``claimInstance(_:)``); a lease
/// names its owner (that id) and its expiry. A claim never takes another owner's live lease; a stopped or
/// killed instance's leases are taken once they expire, or at once when that instance starts again
/// (``releaseLeases(owner:)``) or hands them back (``releaseClaims(_:owner:)``).
///
/// - Throws: every call throws ``StoreError`` (`.busy`, `.io`, `.constraint`, …) when the backend fails.
public protocol Store: ProviderTokenCache, DittoMirror, DittoMirrorReads, DittoRequeries {
    /// Registers `token` (its platform with it) for `userId`, or re-registers it, and joins the user to
    /// `rooms` as `origin` made them; one transaction.
    ///
    /// A new token is inserted (`created == true`). A known one gets the new user, platform, scope (an APNs
    /// token's environment, ``RelayCore/PushToken/storedScope``) and `updatedAt = at` (and `createdAt = at`
    /// when it moves to another user, who is not told when it was first registered); a retired one is
    /// revived (state `live`, retired fields cleared). Every registration
    /// clears the identities the token is unlinked from (``RelayCore/PushToken/unlinked``). The joins follow
    /// ``addMember(appId:roomId:userId:notify:origin:at:limits:)``
    /// with the levels kept: a user's own skip the rooms whose own rule is closed.
    ///
    /// With `limits`, the (app, user) is locked first and the user's counts checked in the transaction: its
    /// live devices besides `token`, and the rooms it is in and would join.
    /// - Throws: ``UserLimitExceeded`` over `limits`, writing nothing.
    func upsertDevice(
        appId: String,
        token: PushToken,
        userId: String,
        rooms: [String],
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws -> (device: Device, created: Bool)

    /// The device registered with `token` for `appId`, live or retired; nil if none.
    func device(appId: String, token: PushToken) async throws -> Device?

    /// Deletes the registration. Its pending deliveries end `failed` (reason `DeviceDeleted`) when next
    /// claimed, so a notification's history stays complete. Returns false when there was no such device.
    func deleteDevice(appId: String, token: PushToken) async throws -> Bool

    /// The user's devices (live and retired), oldest registration first.
    func devices(appId: String, userId: String) async throws -> [Device]

    /// Adds the user to the room as `origin` made the membership, or updates the member: `notify` changes
    /// the user's own level for the room in the same transaction (nil keeps it; a new member follows its
    /// default), and a membership the backend names becomes the backend's (a user's own call never takes
    /// that back). Returns the member as stored.
    ///
    /// A user's own join (`origin` `.user`) of a room whose own rule (``roomMembership(appId:roomId:)``) is
    /// `closed` adds nothing and returns nil, decided in the write, so a join racing
    /// ``setRoomMembership(appId:roomId:membership:at:)`` never lands after the close (the app's default
    /// rule is the caller's to check: it does not change while the relay runs).
    ///
    /// With `limits`, the (app, user) is locked first and a new membership counted against its rooms in the
    /// transaction.
    /// - Throws: ``UserLimitExceeded`` `.rooms` over `limits`, writing nothing.
    @discardableResult
    func addMember(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange?,
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws
        -> RoomMember?

    /// Changes the user's own level for the room, whatever the room's rule, for whom `scope` names.
    /// - Returns: false when `scope` is ``RoomLevelScope/members`` and the user is not a member (nothing is
    ///   written).
    /// - Throws: ``UserLimitExceeded`` `.roomLevels` past the scope's bound (nothing is written); the store's
    ///   error.
    @discardableResult
    func setRoomLevel(
        appId: String,
        roomId: String,
        userId: String,
        _ change: RoomLevelChange,
        scope: RoomLevelScope
    ) async throws -> Bool

    /// The user's own level for the room; nil when it has none (its default applies).
    func roomLevel(appId: String, roomId: String, userId: String) async throws -> NotifyLevel?

    /// The user's default level, for the rooms it set none for; nil when it has none (`all` applies).
    func userLevel(appId: String, userId: String) async throws -> NotifyLevel?

    /// Sets the user's default level (``userLevel(appId:userId:)``); nil removes it.
    func setUserLevel(appId: String, userId: String, _ level: NotifyLevel?) async throws

    /// Removes the user from the room, whoever made the membership, with its own level for the room. Returns
    /// false when the user was not a member.
    func removeMember(appId: String, roomId: String, userId: String) async throws -> Bool

    /// The room's members, by user id.
    func members(appId: String, roomId: String) async throws -> [RoomMember]

    /// A page of the room's members by user id: at most `limit` (at least 1) from the `offset`-th (0 first).
    func members(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [RoomMember]

    /// The user's membership of the room; nil when not a member.
    func member(appId: String, roomId: String, userId: String) async throws -> RoomMember?

    /// Those of `userIds` that are not members of the room, in the order given.
    func nonMembers(appId: String, roomId: String, userIds: [String]) async throws -> [String]

    /// How many rooms the user is a member of.
    func roomCount(appId: String, userId: String) async throws -> Int

    /// The room's own membership rule, set by ``setRoomMembership(appId:roomId:membership:at:)``; nil when it
    /// has none (the app's setting applies).
    func roomMembership(appId: String, roomId: String) async throws -> RoomMembership?

    /// Gives the room a membership rule of its own (the room needs no members for it). Setting `closed`
    /// also removes the memberships the users made themselves (``RoomMember/Origin/user``) and their levels
    /// for the room, in the same transaction: a closed room reaches only the members its backend set.
    /// - Returns: how many memberships closing removed (0 when opening).
    @discardableResult
    func setRoomMembership(appId: String, roomId: String, membership: RoomMembership, at: Date) async throws -> Int

    /// How many live devices the user has registered.
    func liveDeviceCount(appId: String, userId: String) async throws -> Int

    /// Records a notification and its pending deliveries in ONE transaction, with its idempotency key if any.
    ///
    /// With `idempotencyKey`, the key is looked up first, by (`n.appId`, scope, key): one remembered less than
    /// ``IdempotencyKey/retention`` before `n.createdAt` answers `.duplicate` with its notification's id and
    /// delivery count when its fingerprint is `idempotencyKey.requestHash`, and `.keyReused` otherwise; either
    /// way nothing is inserted. An older one is forgotten (its row deleted) and the call goes on as without
    /// it. A notification the call records has its key's row (app id, scope, key, fingerprint, notification
    /// id, `n.createdAt`) written in the same transaction, so a call that fails or is answered from an
    /// earlier one remembers nothing; recording one also deletes a bounded batch of forgotten keys of any app. A
    /// unique index on (app id, scope, key) makes two concurrent calls with one key record one notification:
    /// the other answers from it (an engine whose transactions run concurrently inserts the key's row first,
    /// so the second waits on the index for the first to commit, then answers from its row).
    ///
    /// A message id names one message of one sender in the app, whatever its kind: if a notification with the
    /// same (appId, messageId) exists (messageId non-nil), inserts nothing and returns `.duplicate` with the
    /// first one's id and delivery count when its kind, room and sender are all this one's, else `.conflict`
    /// (a message id used twice in the app, not the same webhook again). A unique index on (app id, message
    /// id) holds it under concurrency. Otherwise
    /// one pending delivery, due at ``NewNotification/dueAt`` (the grace window after the message's time), is created for each distinct live device of `n.appId` whose
    /// user is a recipient (`recipients.userIds`, or the members of `recipients.roomId`) whose level for the
    /// room admits the message (``RecipientSelection``; explicit recipients regardless of it with
    /// ``RecipientSelection/overridesLevels``), except the
    /// devices of `excludeUserId`, the token `excludeToken`, and devices whose token is unlinked from
    /// `n.sendAs`. The levels are read inside the same statement, set-based. Each delivery's push id (an
    /// iOS delivery's apns-id) is derived from the notification and delivery ids
    /// (``RelayCore/PushIdentifier``). The message is stored as given and read back, whole, into every job's
    /// ``RelayCore/NotificationContent``.
    /// The notification also enters its room's message index (``IndexedMessage``: key its id, time
    /// `n.createdAt`) in the transaction, for the unread counts.
    /// Devices are selected inside the database: memory does not grow with the room.
    func createNotification(
        _ n: NewNotification,
        recipients: RecipientSelection,
        idempotencyKey: IdempotencyKey?
    ) async throws -> CreateOutcome

    /// The apps with a pending delivery due at `now` (next attempt <= now, no live lease), by app id.
    func appsWithDueDeliveries(now: Date) async throws -> [String]

    /// Atomically takes up to `limit` of `appId`'s pending deliveries due at `now` (next attempt <= now) that
    /// hold no live lease of any owner, oldest due first, and leases them to `owner` until `now + leaseSeconds`:
    /// they are not claimed again before that, unless completed (then never) or released by their owner
    /// (``releaseLeases(owner:)``, ``releaseClaims(_:owner:)``).
    ///
    /// A due delivery whose device can no longer receive it is ended here instead of returned: device
    /// deleted or registered again for another user (`failed`, `DeviceDeleted`), retired (`retired`, the
    /// device's retired reason), or its token unlinked from the identity the notification is sent as
    /// (`failed`, ``RelayCore/PushResult/unlinkedReason``). A due delivery of a message (not a removal)
    /// whose recipient read the room
    /// up to the message's time (``UnreadSQL/readReached(app:room:user:time:fromDitto:)``) is ended
    /// `cancelled` (reason `read`) and returned with ``RelayCore/DeliveryJob/cancelReason`` set, not to be
    /// sent. Fewer than `limit` jobs
    /// means no more of the app's were due. For an app with badges (``UnreadPolicy/badgeAppIds``) each job
    /// carries its recipient's unread total, counted in the claim's transaction.
    func claimDueDeliveries(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [DeliveryJob]

    /// Clears the leases `owner` holds on deliveries, badge updates and feedback items, so they can be claimed at once: an
    /// instance's start-up takes back the work its previous run left. Other owners' leases stay.
    func releaseLeases(owner: String) async throws

    /// Hands back claimed deliveries that were not sent: the leases `owner` holds on `deliveryIds` are cleared
    /// (ids it does not hold are skipped) and other instances are told the outbox has work
    /// (``setOutboxWakeHandler(_:)``). A graceful stop calls it for the jobs still queued.
    func releaseClaims(_ deliveryIds: [Int64], owner: String) async throws

    /// The deliveries of each notification of `ids` that has none pending any more, counted by status;
    /// one with a delivery still pending, or no deliveries, or unknown, is left out. One call for a batch
    /// of results (never one per delivery): the dispatcher logs a line per notification once it is done.
    func finishedNotificationCounts(_ ids: [UUID]) async throws -> [UUID: DeliveryCounts]

    /// Makes `id` this process's instance id for as long as the store is open, so that two live relays
    /// configured with one id are found out at start instead of taking each other's leases. A SQLite store
    /// serves one relay: a second claim of its file, with any id, is refused.
    /// A store a `storage copy` writes into, or one a copy stopped part way left (``StoreCopy/Mark``), is
    /// refused.
    /// - Throws: ``StoreError`` `.instanceInUse` when a live instance (another process, or another store in
    ///   this one) already holds `id` (on SQLite: the file), `.copyUnfinished` for a store a copy has not
    ///   finished (``StoreCopy/Mark/refusal(startedAt:fresh:)``).
    func claimInstance(_ id: String) async throws

    /// Calls `handler` whenever another process may have made deliveries due (a webhook committed through
    /// another relay, or claims handed back). A hint: callers still poll. A store whose writers all live in
    /// this process keeps nothing and never calls it (the API wakes the dispatcher itself).
    func setOutboxWakeHandler(_ handler: (@Sendable () -> Void)?) async

    /// Records a batch of attempt outcomes (see ``DeliveryOutcome``) in ONE transaction at time `at`.
    /// Unknown delivery ids are skipped. An outcome is recorded only on a delivery that takes a result
    /// (``DeliveryStatus/takesResultSQL``: pending, or cancelled while in flight); one already sent, failed or
    /// retired keeps its end. A dead token or a refused identity reaches the device either way.
    func complete(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)], at: Date) async throws

    /// The id of the notification that `messageId` names in `appId` (a message id names one message of one
    /// sender in an app); nil when none is kept.
    func notificationId(appId: String, messageId: String) async throws -> UUID?

    /// The notification `id` of `appId` with its delivery counts and up to `limit` of its deliveries in the
    /// order they were made, from the one at `offset` (0 is the first; the list never changes, so pages of it
    /// are stable); nil if the app has no such notification.
    func notification(
        appId: String,
        id: UUID,
        limit: Int,
        offset: Int
    ) async throws
        -> (summary: NotificationSummary, deliveries: [DeliveryRecord])?

    /// Pending deliveries of all apps (a metric).
    func pendingDeliveryCount() async throws -> Int

    /// Each app's outbox at `now` (``OutboxCounts``), by app id; an app with nothing pending is absent. Counted
    /// over the pending deliveries only (an index range), for the gauges one relay reports.
    func outboxCounts(now: Date) async throws -> [String: OutboxCounts]

    /// Whether any delivery of any app is pending, in constant time (``pendingDeliveryCount()`` counts them).
    func hasPendingDeliveries() async throws -> Bool

    /// Devices of all apps by state; both states are always present (a metric).
    func deviceCounts() async throws -> [DeviceState: Int]

    /// The app's retired devices retired at or after `since`, oldest retirement first.
    func deadTokens(appId: String, since: Date) async throws -> [Device]

    /// Readiness: performs a tiny committed write.
    /// - Throws: ``StoreError`` when the database cannot be written (read-only, disk full, locked).
    func checkWritable() async throws

    // MARK: Dead tokens and feedback

    /// The app's retired devices retired at or after `since`, oldest retirement first, at most `limit`.
    func deadTokens(appId: String, since: Date, limit: Int) async throws -> [Device]

    /// Sets which apps' retirements ``complete(_:at:)`` queues for feedback, in the transaction that retires
    /// the device, and when queued items expire. Until called, nothing is queued.
    func setFeedbackPolicy(_ policy: FeedbackPolicy) async

    /// Atomically takes up to `limit` queued feedback items due at `now` that hold no live lease, oldest due
    /// first, and leases them to `owner` until `now + leaseSeconds` (like
    /// ``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)``). Expired items are returned too: the
    /// caller drops them (and logs it). Only items of the apps in the feedback policy
    /// (``setFeedbackPolicy(_:)``, the apps this relay has a feedback URL for) are taken: another app's wait
    /// for a relay that has its URL (relays whose configurations differ during a rolling change).
    func claimDueFeedback(now: Date, limit: Int, leaseSeconds: Int, owner: String) async throws -> [FeedbackJob]

    /// Records feedback outcomes in ONE transaction at `at`: delivered and dropped items are deleted, retried
    /// ones rescheduled. Unknown ids are skipped.
    func completeFeedback(_ results: [(feedbackId: Int64, outcome: FeedbackOutcome)], at: Date) async throws

    /// Feedback items queued, of all apps (a metric).
    func pendingFeedbackCount() async throws -> Int

    // MARK: Read positions and unread counts

    /// Sets where each app's read positions come from and which apps' claims carry badges. Until called,
    /// positions come from memberships and no job carries a badge.
    func setUnreadPolicy(_ policy: UnreadPolicy) async

    /// Deletes the cached unread totals of every app the policy keeps none for
    /// (``UnreadPolicy/keepsTotals(appId:)``): an app that had badges before this start has rows nothing
    /// kept up since, and with badges again a user without a row is recounted when a claim needs it.
    func dropUnreadTotalsNotKept() async throws

    /// Moves the member's read position of the room forward to `at` (a position never moves back; it starts
    /// at the join time). The caller clamps `at` to its now. For an app with badges, a move that lowers the
    /// user's unread total gives its devices badge updates in the same transaction (``BadgeUpdateRule``,
    /// due from the store's clock).
    /// - Returns: the position as stored; nil when the user is not a member (nothing is written).
    func markRead(appId: String, roomId: String, userId: String, at: Date) async throws -> Date?

    /// The user's unread messages (``UnreadSQL``): its total, and at most `roomLimit` rooms with unread
    /// messages, most first. The positions are the app's per ``UnreadPolicy/dittoAppIds``. Counted in the
    /// database by ranges of the message index: memory does not grow with a room.
    func unreadCounts(appId: String, userId: String, roomLimit: Int) async throws -> UnreadCounts

    /// Deletes the `limit` oldest indexed messages of any app written before `before` (with the rest of
    /// their rooms' messages written at the same times), taking them from the cached unread totals, in one
    /// transaction. A room of an app whose totals this store's policy does not keep has its users' cached
    /// totals dropped instead (``UnreadSQL/dropRoomTotalsSQL``).
    /// - Returns: how many were deleted (fewer than `limit`: no more were due).
    func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int

    // MARK: Badge updates

    /// The apps with a badge update due at `now` that holds no live lease, by app id.
    func appsWithDueBadgeUpdates(now: Date) async throws -> [String]

    /// Atomically takes up to `limit` of `appId`'s badge updates due at `now` (one per device at most,
    /// ``BadgeUpdateSQL``) that hold no live lease, oldest due first, and leases them to `owner` until
    /// `now + leaseSeconds`, like ``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)``. Each job
    /// carries its user's unread total, counted in the claim's transaction. An update whose device is
    /// deleted, retired or now another user's is deleted instead of returned.
    func claimDueBadgeUpdates(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [BadgeUpdateJob]

    /// Records badge update outcomes in ONE transaction at `at`: sent (the next change is due a window after
    /// it; one that came while it was in flight is due then already), retried (due at the retry time),
    /// failed or unlinked (nothing pending; the token unlinked from the identity), retired (the device retired
    /// as ``complete(_:at:)`` retires it, its row deleted). Also deletes a bounded batch of rows with
    /// nothing pending whose last send is over an hour old. Unknown ids are skipped.
    func completeBadgeUpdates(_ results: [(updateId: Int64, outcome: DeliveryOutcome)], at: Date) async throws

    /// Hands back claimed badge updates that were not sent: `owner`'s leases on `updateIds` are cleared.
    func releaseBadgeUpdateClaims(_ updateIds: [Int64], owner: String) async throws

    // MARK: State shared by relays

    /// Decides one write of a user (a webhook, a registration, a membership change) by ``UserRateLimit`` at
    /// `now` and, when it is allowed, takes a token from each of its buckets and counts its pushes, in ONE
    /// transaction that holds the user's buckets, so relays sharing the store share one budget. Refused,
    /// nothing is taken or counted. Also deletes a bounded batch of the app's buckets that have refilled (a
    /// missing bucket is a full one) and of counts of past minutes.
    /// - Returns: nil when allowed; else which limit refused it and when to try again.
    func takeUserRate(_ request: UserRateRequest, at now: Date) async throws -> UserRateRefusal?

    /// Gives wake pushes (``RelayCore/PushMode/wake``) from devices' hourly budgets: `tokens` are the devices
    /// of `appId` that claimed deliveries ask to wake, in the claim's order (a device named twice asks for
    /// two). Each device counts the wake pushes it was given in the UTC clock hour of `now`; it is given one
    /// while its count is below `budget`, in the order asked, and the counts grow by what was given, in ONE
    /// transaction that holds the devices' counts, so relays sharing the store share each device's budget.
    /// Also deletes a bounded batch of counts of past hours.
    /// - Returns: for each of `tokens`, whether it is given a wake push (else its delivery is an alert).
    func takeWakePushes(appId: String, tokens: [String], perHour budget: Int, at now: Date) async throws -> [Bool]

    /// Whether the caller runs periodic `job` now: true when the job is due at `now` (never run, or its next
    /// run is at or before `now`), and then its next run is set to `now + interval` and `owner` recorded, in
    /// one atomic statement; false when another caller (of this relay or another) took this run.
    func claimPeriodicRun(job: String, owner: String, now: Date, interval: Duration) async throws -> Bool

    /// When periodic `job` was last claimed (``claimPeriodicRun(job:owner:now:interval:)``), its lease last
    /// held; nil when never.
    func lastPeriodicRun(job: String) async throws -> Date?

    /// Whether `owner` holds the lease of `job` (a row of the periodic jobs' table) until `now + duration`:
    /// true when it held the lease already (then renewed) or the lease ran out by `now` (then taken), in one
    /// atomic statement; false while another owner holds it. A holder that stops gives it up by renewing it
    /// with a `duration` of zero. Used where one relay of several does a job continuously (reporting the
    /// store's gauges).
    func holdPeriodicLease(job: String, owner: String, now: Date, duration: Duration) async throws -> Bool

    /// Deletes up to `limit` notifications of any app created before `createdBefore` none of whose
    /// deliveries is pending, oldest first, with their deliveries and idempotency keys, in one transaction.
    /// The notification then reads as unknown (``notification(appId:id:limit:offset:)`` answers nil).
    /// - Returns: how many notifications were deleted (fewer than `limit`: no more were due).
    func deleteFinishedNotifications(createdBefore: Date, limit: Int) async throws -> Int

    /// Deletes up to `limit` devices of any app retired before `retiredBefore`, oldest retirement first, in
    /// one transaction; a retired device is kept for the dead-token list and feedback until then. Their
    /// pending deliveries end as those of a deleted device (``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)``).
    /// - Returns: how many devices were deleted (fewer than `limit`: no more were due).
    func deleteRetiredDevices(retiredBefore: Date, limit: Int) async throws -> Int

    /// Ends the pending work of `appId`, for an app taken out of every relay's configuration (no relay
    /// claims it again, `push-relay storage end-pending`), in one transaction: its pending deliveries end
    /// `failed` (reason ``EndedWork/reason``, at `at`), its due badge updates are no longer due and its queued
    /// dead-token feedback is deleted. A delivery a relay still sends takes no result after this.
    func endPendingWork(appId: String, at: Date) async throws -> EndedWork
}

extension Store {
    /// ``claimDueDeliveries(appId:now:limit:leaseSeconds:owner:)`` over every app in app id order, up to
    /// `limit` in all.
    public func claimDueDeliveries(
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws
        -> [DeliveryJob]
    {
        var jobs: [DeliveryJob] = []
        for appId in try await appsWithDueDeliveries(now: now) where jobs.count < limit {
            jobs += try await claimDueDeliveries(
                appId: appId,
                now: now,
                limit: limit - jobs.count,
                leaseSeconds: leaseSeconds,
                owner: owner
            )
        }
        return jobs
    }

    /// ``createNotification(_:recipients:idempotencyKey:)`` without an idempotency key.
    public func createNotification(_ n: NewNotification, recipients: RecipientSelection) async throws -> CreateOutcome {
        try await createNotification(n, recipients: recipients, idempotencyKey: nil)
    }

    /// ``notification(appId:id:limit:offset:)`` with its first `limit` deliveries (1000 by default).
    public func notification(
        appId: String,
        id: UUID,
        limit: Int = 1000
    ) async throws
        -> (summary: NotificationSummary, deliveries: [DeliveryRecord])?
    {
        try await notification(appId: appId, id: id, limit: limit, offset: 0)
    }

    /// ``addMember(appId:roomId:userId:notify:origin:at:limits:)`` as the backend makes it.
    @discardableResult
    public func addMember(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange? = nil,
        at: Date
    ) async throws
        -> RoomMember
    {
        guard
            let member = try await addMember(
                appId: appId,
                roomId: roomId,
                userId: userId,
                notify: notify,
                origin: .backend,
                at: at,
                limits: nil
            )
        else { throw StoreError(code: .notFound, message: "addMember returned no row") }
        return member
    }

    /// ``upsertDevice(appId:token:userId:rooms:origin:at:limits:)`` with the backend's joins.
    public func upsertDevice(
        appId: String,
        token: PushToken,
        userId: String,
        rooms: [String],
        at: Date
    ) async throws -> (device: Device, created: Bool) {
        try await upsertDevice(
            appId: appId,
            token: token,
            userId: userId,
            rooms: rooms,
            origin: .backend,
            at: at,
            limits: nil
        )
    }

    /// ``upsertDevice(appId:token:userId:rooms:origin:at:limits:)`` without limits.
    public func upsertDevice(
        appId: String,
        token: PushToken,
        userId: String,
        rooms: [String],
        origin: RoomMember.Origin,
        at: Date
    ) async throws -> (device: Device, created: Bool) {
        try await upsertDevice(
            appId: appId,
            token: token,
            userId: userId,
            rooms: rooms,
            origin: origin,
            at: at,
            limits: nil
        )
    }

    /// ``addMember(appId:roomId:userId:notify:origin:at:limits:)`` without limits.
    @discardableResult
    public func addMember(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange?,
        origin: RoomMember.Origin,
        at: Date
    ) async throws -> RoomMember? {
        try await addMember(
            appId: appId,
            roomId: roomId,
            userId: userId,
            notify: notify,
            origin: origin,
            at: at,
            limits: nil
        )
    }
}

/// A store whose rows can be read out table by table, for ``StoreCopy`` (`push-relay storage copy`).
public protocol StoreExport: Sendable {
    /// Up to `limit` rows of `table` in key order (``StoreTable/key``), after the row `after` (a
    /// ``StoreBatch/last``; nil from the first). Fewer than `limit` means the table is done.
    func exportBatch(_ table: StoreTable, after: Data?, limit: Int) async throws -> StoreBatch

    /// Confirms, once every table was read, that the rows read are the store as no relay changed it
    /// meanwhile (a SQLite source's lock file is held throughout; a PostgreSQL source asks again).
    /// - Throws: ``StoreError`` when a relay may have written during the copy: the copy is not to be used.
    func finishExport() async throws

    /// Why the store is not whole when a copy into it has not finished (``StoreCopy/Mark``, the refusal
    /// ``Store/claimInstance(_:)`` throws), nil when none is marked: such a store is neither served nor
    /// copied from, nor changed by the storage commands.
    func unfinishedCopy() async throws -> StoreError?
}

/// A store that rows read out of another (``StoreExport``) can be written into, for ``StoreCopy``.
public protocol StoreImport: Sendable {
    /// Rows in the tables ``StoreTable`` names (0 when there is nothing to overwrite).
    func importedRowCount() async throws -> Int

    /// Before the first batch: refuses a store a live relay serves (PostgreSQL: a SQLite destination is held
    /// by the copy's lock from its open), and writes ``StoreCopy/Mark``, so no relay starts on the store
    /// until ``finishImport()``.
    /// - Throws: ``StoreError`` `.instanceInUse` when a relay serves the store.
    func beginImport() async throws

    /// Writes the batch's rows as they are (ids kept, leases none) in ONE transaction.
    /// - Throws: ``StoreError`` `.constraint` when a row exists already, `.invalidData` for a row the engine
    ///   cannot hold.
    func importBatch(_ batch: StoreBatch) async throws

    /// After the last batch: makes new ids follow the copied ones, and deletes ``StoreCopy/Mark``.
    func finishImport() async throws
}
