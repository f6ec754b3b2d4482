extension DittoMessageFacts {
    /// The facts read from user documents held in memory: what a store's set-based queries must give for the
    /// same documents (ids compared as bytes of UTF-8, as the store compares them). For tests and small
    /// mirrors; a store never loads every user of a room.
    public init(for message: DittoMessageRule.Message, room: Room?, users: some Sequence<DittoChatUser>) {
        var senderName: String?
        var subscribers: [Subscriber] = []
        var mentioned: [String] = []
        for user in users {
            if user.id.isSameId(message.senderId), senderName == nil { senderName = user.name }
            if let subscription = user.subscriptions.first(where: { $0.key.isSameId(message.roomId) })?.value {
                subscribers.append(Subscriber(userId: user.id, subscription: subscription))
            }
            let listed = user.mentions.first { $0.key.isSameId(message.roomId) }?.value ?? []
            if listed.contains(where: { $0.isSameId(message.id) }) { mentioned.append(user.id) }
        }
        self.init(room: room, senderName: senderName, subscribers: subscribers, mentionedByUserDocuments: mentioned)
    }
}
