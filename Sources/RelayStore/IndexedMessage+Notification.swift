import RelayCore

extension IndexedMessage {
    /// The index row of a webhook's notification: keyed by the notification's id, written at its acceptance.
    package init(_ n: NewNotification) {
        self.init(
            roomId: n.message.roomId,
            key: n.id.lowercasedString,
            senderId: n.message.senderId,
            createdAt: n.createdAt,
            isArchived: false
        )
    }
}
