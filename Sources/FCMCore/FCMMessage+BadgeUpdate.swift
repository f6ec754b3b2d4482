import RelayCore

extension FCMMessage {
    /// The data message that sets the Android app's badge after its user read elsewhere
    /// (``RelayCore/BadgeUpdateJob``): `data` holds only ``unreadKey`` (`{"dittoChatUnread": "N"}`, a
    /// decimal string), no `notification` and no tag, so FCM shows nothing and hands it to the app's
    /// `FirebaseMessagingService`; NORMAL priority, since nothing needs the device awake at once (Firebase,
    /// "Set and manage Android message priority").
    public init(token: FCMRegistrationToken, unread: Int, ttlSeconds: Int) {
        self.init(
            token: token,
            title: nil,
            body: nil,
            data: [Self.unreadKey: String(unread)],
            priority: .normal,
            ttlSeconds: ttlSeconds,
            tag: nil
        )
    }
}
