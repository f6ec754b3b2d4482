import Foundation
import RelayCore

/// A ``Store`` over several stores of one database (each its own connection and thread, e.g. a
/// `PostgresStore` per connection), so calls run side by side instead of queueing behind one connection.
///
/// Each call takes a free member for its whole duration. A call made under a ``StoreDeadline`` that finds
/// no member free by then is not started and throws ``StoreError/Code/unavailable``; calls without one
/// wait. Every call's outcome goes to ``health``, which logs once when storage goes away and once when it is
/// back (a call not started says nothing of the storage: ``StorageHealth``).
/// Once a call found the store damaged (``StorageHealth/damage``) no call is started: each throws that
/// damage, so nothing more is written to a store a restore will replace (a message accepted now would be
/// lost by it) and no delivery is claimed whose result could not be recorded (it would be sent again at
/// each lease's end).
///
/// The setters of per-store state (``setFeedbackPolicy(_:)``, ``setUnreadPolicy(_:)``) reach every member;
/// ``claimInstance(_:)`` and ``setOutboxWakeHandler(_:)`` the first one only (one lock, one listener).
public final class StorePool: Store {
    private let members: [any Store]
    private let slots: StoreSlots
    /// Whether storage answers (``StorageHealth``); logs the changes.
    public let health: StorageHealth

    /// - Parameter members: at least one store, all of the same database.
    public init(members: [any Store], logger: Logger) {
        precondition(!members.isEmpty, "a store pool needs a member")
        self.members = members
        slots = StoreSlots(count: members.count)
        health = StorageHealth(logger: logger)
    }

    /// How many calls run at once.
    public var size: Int { members.count }

    /// Calls waiting for a member.
    var waiting: Int { slots.waiting }

    /// Runs `body` on a free member, once one is free and before the task's ``StoreDeadline``.
    /// - Throws: the store's ``StorageHealth/damage`` once it has one; ``StoreError/Code/unavailable`` when
    ///   the deadline passed first; else what `body` throws.
    func call<T>(_ body: (any Store) async throws -> T) async throws -> T {
        if let damage = health.damage { throw damage }
        guard let index = await slots.acquire(deadline: StoreDeadline.current) else {
            throw StoreError(code: .unavailable, message: "no storage connection was free by the request's deadline")
        }
        defer { slots.release(index) }
        do {
            let result = try await body(members[index])
            health.record(nil)
            return result
        } catch {
            health.record(error)
            throw error
        }
    }

    // MARK: Per-store state

    public func claimInstance(_ id: String) async throws { try await members[0].claimInstance(id) }

    public func setOutboxWakeHandler(_ handler: (@Sendable () -> Void)?) async {
        await members[0].setOutboxWakeHandler(handler)
    }

    public func setFeedbackPolicy(_ policy: FeedbackPolicy) async {
        for member in members { await member.setFeedbackPolicy(policy) }
    }

    public func setUnreadPolicy(_ policy: UnreadPolicy) async {
        for member in members { await member.setUnreadPolicy(policy) }
    }

    public func dropUnreadTotalsNotKept() async throws {
        try await call { try await $0.dropUnreadTotalsNotKept() }
    }

    // MARK: Devices and rooms

    public func upsertDevice(
        appId: String,
        token: PushToken,
        userId: String,
        rooms: [String],
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws -> (device: Device, created: Bool) {
        try await call {
            try await $0.upsertDevice(
                appId: appId,
                token: token,
                userId: userId,
                rooms: rooms,
                origin: origin,
                at: at,
                limits: limits
            )
        }
    }

    public func device(appId: String, token: PushToken) async throws -> Device? {
        try await call { try await $0.device(appId: appId, token: token) }
    }

    public func deleteDevice(appId: String, token: PushToken) async throws -> Bool {
        try await call { try await $0.deleteDevice(appId: appId, token: token) }
    }

    public func devices(appId: String, userId: String) async throws -> [Device] {
        try await call { try await $0.devices(appId: appId, userId: userId) }
    }

    @discardableResult
    public func addMember(
        appId: String,
        roomId: String,
        userId: String,
        notify: RoomLevelChange?,
        origin: RoomMember.Origin,
        at: Date,
        limits: UserLimits?
    ) async throws -> RoomMember? {
        try await call {
            try await $0.addMember(
                appId: appId,
                roomId: roomId,
                userId: userId,
                notify: notify,
                origin: origin,
                at: at,
                limits: limits
            )
        }
    }

    @discardableResult
    public func setRoomLevel(
        appId: String,
        roomId: String,
        userId: String,
        _ change: RoomLevelChange,
        scope: RoomLevelScope
    ) async throws -> Bool {
        try await call {
            try await $0.setRoomLevel(appId: appId, roomId: roomId, userId: userId, change, scope: scope)
        }
    }

    public func roomLevel(appId: String, roomId: String, userId: String) async throws -> NotifyLevel? {
        try await call { try await $0.roomLevel(appId: appId, roomId: roomId, userId: userId) }
    }

    public func userLevel(appId: String, userId: String) async throws -> NotifyLevel? {
        try await call { try await $0.userLevel(appId: appId, userId: userId) }
    }

    public func setUserLevel(appId: String, userId: String, _ level: NotifyLevel?) async throws {
        try await call { try await $0.setUserLevel(appId: appId, userId: userId, level) }
    }

    public func removeMember(appId: String, roomId: String, userId: String) async throws -> Bool {
        try await call { try await $0.removeMember(appId: appId, roomId: roomId, userId: userId) }
    }

    public func members(appId: String, roomId: String) async throws -> [RoomMember] {
        try await call { try await $0.members(appId: appId, roomId: roomId) }
    }

    public func members(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [RoomMember] {
        try await call { try await $0.members(appId: appId, roomId: roomId, offset: offset, limit: limit) }
    }

    public func member(appId: String, roomId: String, userId: String) async throws -> RoomMember? {
        try await call { try await $0.member(appId: appId, roomId: roomId, userId: userId) }
    }

    public func nonMembers(appId: String, roomId: String, userIds: [String]) async throws -> [String] {
        try await call { try await $0.nonMembers(appId: appId, roomId: roomId, userIds: userIds) }
    }

    public func roomCount(appId: String, userId: String) async throws -> Int {
        try await call { try await $0.roomCount(appId: appId, userId: userId) }
    }

    public func roomMembership(appId: String, roomId: String) async throws -> RoomMembership? {
        try await call { try await $0.roomMembership(appId: appId, roomId: roomId) }
    }

    @discardableResult
    public func setRoomMembership(
        appId: String,
        roomId: String,
        membership: RoomMembership,
        at: Date
    ) async throws -> Int {
        try await call { try await $0.setRoomMembership(appId: appId, roomId: roomId, membership: membership, at: at) }
    }

    public func liveDeviceCount(appId: String, userId: String) async throws -> Int {
        try await call { try await $0.liveDeviceCount(appId: appId, userId: userId) }
    }

    // MARK: Notifications and the outbox

    public func createNotification(
        _ n: NewNotification,
        recipients: RecipientSelection,
        idempotencyKey: IdempotencyKey?
    ) async throws -> CreateOutcome {
        try await call { try await $0.createNotification(n, recipients: recipients, idempotencyKey: idempotencyKey) }
    }

    public func appsWithDueDeliveries(now: Date) async throws -> [String] {
        try await call { try await $0.appsWithDueDeliveries(now: now) }
    }

    public func claimDueDeliveries(
        appId: String,
        now: Date,
        limit: Int,
        leaseSeconds: Int,
        owner: String
    ) async throws -> [DeliveryJob] {
        try await call {
            try await $0.claimDueDeliveries(
                appId: appId,
                now: now,
                limit: limit,
                leaseSeconds: leaseSeconds,
                owner: owner
            )
        }
    }

    public func releaseLeases(owner: String) async throws {
        try await call { try await $0.releaseLeases(owner: owner) }
    }

    public func releaseClaims(_ deliveryIds: [Int64], owner: String) async throws {
        try await call { try await $0.releaseClaims(deliveryIds, owner: owner) }
    }

    public func complete(_ results: [(deliveryId: Int64, outcome: DeliveryOutcome)], at: Date) async throws {
        try await call { try await $0.complete(results, at: at) }
    }

    public func notificationId(appId: String, messageId: String) async throws -> UUID? {
        try await call { try await $0.notificationId(appId: appId, messageId: messageId) }
    }

    public func notification(
        appId: String,
        id: UUID,
        limit: Int,
        offset: Int
    ) async throws -> (summary: NotificationSummary, deliveries: [DeliveryRecord])? {
        try await call { try await $0.notification(appId: appId, id: id, limit: limit, offset: offset) }
    }

    public func pendingDeliveryCount() async throws -> Int {
        try await call { try await $0.pendingDeliveryCount() }
    }

    public func hasPendingDeliveries() async throws -> Bool {
        try await call { try await $0.hasPendingDeliveries() }
    }

    public func deviceCounts() async throws -> [DeviceState: Int] {
        try await call { try await $0.deviceCounts() }
    }

    public func checkWritable() async throws {
        try await call { try await $0.checkWritable() }
    }

    // MARK: Dead tokens and feedback

    public func deadTokens(appId: String, since: Date) async throws -> [Device] {
        try await call { try await $0.deadTokens(appId: appId, since: since) }
    }

    public func deadTokens(appId: String, since: Date, limit: Int) async throws -> [Device] {
        try await call { try await $0.deadTokens(appId: appId, since: since, limit: limit) }
    }

    public func claimDueFeedback(now: Date, limit: Int, leaseSeconds: Int, owner: String) async throws -> [FeedbackJob]
    {
        try await call {
            try await $0.claimDueFeedback(now: now, limit: limit, leaseSeconds: leaseSeconds, owner: owner)
        }
    }

    public func completeFeedback(_ results: [(feedbackId: Int64, outcome: FeedbackOutcome)], at: Date) async throws {
        try await call { try await $0.completeFeedback(results, at: at) }
    }

    public func pendingFeedbackCount() async throws -> Int {
        try await call { try await $0.pendingFeedbackCount() }
    }

    // MARK: Read positions and unread counts

    public func markRead(appId: String, roomId: String, userId: String, at: Date) async throws -> Date? {
        try await call { try await $0.markRead(appId: appId, roomId: roomId, userId: userId, at: at) }
    }

    public func unreadCounts(appId: String, userId: String, roomLimit: Int) async throws -> UnreadCounts {
        try await call { try await $0.unreadCounts(appId: appId, userId: userId, roomLimit: roomLimit) }
    }

    public func deleteIndexedMessages(before: Date, limit: Int) async throws -> Int {
        try await call { try await $0.deleteIndexedMessages(before: before, limit: limit) }
    }

    // MARK: State shared by relays

    public func takeUserRate(_ request: UserRateRequest, at now: Date) async throws -> UserRateRefusal? {
        try await call { try await $0.takeUserRate(request, at: now) }
    }

    public func takeWakePushes(
        appId: String,
        tokens: [String],
        perHour budget: Int,
        at now: Date
    ) async throws -> [Bool] {
        try await call { try await $0.takeWakePushes(appId: appId, tokens: tokens, perHour: budget, at: now) }
    }

    public func claimPeriodicRun(job: String, owner: String, now: Date, interval: Duration) async throws -> Bool {
        try await call { try await $0.claimPeriodicRun(job: job, owner: owner, now: now, interval: interval) }
    }

    public func lastPeriodicRun(job: String) async throws -> Date? {
        try await call { try await $0.lastPeriodicRun(job: job) }
    }

    public func deleteFinishedNotifications(createdBefore: Date, limit: Int) async throws -> Int {
        try await call { try await $0.deleteFinishedNotifications(createdBefore: createdBefore, limit: limit) }
    }

    public func deleteRetiredDevices(retiredBefore: Date, limit: Int) async throws -> Int {
        try await call { try await $0.deleteRetiredDevices(retiredBefore: retiredBefore, limit: limit) }
    }

    // MARK: Provider tokens

    public func sharedProviderToken(
        teamId: String,
        keyId: String,
        replacing: String?,
        freshAfter: Date,
        signedByCaller: @Sendable (String) -> Bool,
        mint: @Sendable () throws -> IssuedProviderToken
    ) async throws -> IssuedProviderToken {
        try await call {
            try await $0.sharedProviderToken(
                teamId: teamId,
                keyId: keyId,
                replacing: replacing,
                freshAfter: freshAfter,
                signedByCaller: signedByCaller,
                mint: mint
            )
        }
    }

    // MARK: Ditto

    public func applyDittoEvents(
        _ events: [DittoEvent],
        appId: String,
        settings: DittoApplySettings,
        at: Date
    ) async throws -> DittoApplyCounts {
        try await call { try await $0.applyDittoEvents(events, appId: appId, settings: settings, at: at) }
    }

    public func dittoRoom(appId: String, roomId: String) async throws -> DittoMessageFacts.Room? {
        try await call { try await $0.dittoRoom(appId: appId, roomId: roomId) }
    }

    public func dittoSubscribers(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [String] {
        try await call { try await $0.dittoSubscribers(appId: appId, roomId: roomId, offset: offset, limit: limit) }
    }

    public func isDittoSubscriber(appId: String, roomId: String, userId: String) async throws -> Bool {
        try await call { try await $0.isDittoSubscriber(appId: appId, roomId: roomId, userId: userId) }
    }

    public func purgeDittoTombstones(appId: String, removedBefore: Date, limit: Int) async throws -> Int {
        try await call { try await $0.purgeDittoTombstones(appId: appId, removedBefore: removedBefore, limit: limit) }
    }

    public func pendingDittoRequeries() async throws -> [String: UInt64] {
        try await call { try await $0.pendingDittoRequeries() }
    }

    public func claimDittoRequery(appId: String, owner: String, now: Date, leaseSeconds: Int) async throws -> UInt64? {
        try await call {
            try await $0.claimDittoRequery(appId: appId, owner: owner, now: now, leaseSeconds: leaseSeconds)
        }
    }

    public func sweepDittoCollection(
        _ collection: String,
        below txnId: UInt64,
        appId: String,
        settings: DittoApplySettings
    ) async throws -> Int {
        try await call { try await $0.sweepDittoCollection(collection, below: txnId, appId: appId, settings: settings) }
    }

    public func endPendingWork(appId: String, at: Date) async throws -> EndedWork {
        try await call { try await $0.endPendingWork(appId: appId, at: at) }
    }

    public func completeDittoRequery(appId: String, txnId: UInt64?, owner: String?) async throws -> UInt64? {
        try await call { try await $0.completeDittoRequery(appId: appId, txnId: txnId, owner: owner) }
    }
}
