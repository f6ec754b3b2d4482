import Foundation

extension DittoMessageRule {
    /// Who is notified of a message, as DittoChat decides who has it unread: in a DM room its
    /// `participants`; in a public room (and in any room the mirror does not hold) the room's subscribers,
    /// the users the message mentions and the users whose `mentions[roomId]` lists it. Never the sender, and
    /// never a subscriber whose read date is at or after the message's `createdOn` (already read); a
    /// subscription whose value is not a date does not count as read. Ids compare as bytes of UTF-8; one
    /// the relay does not take (``ChatMessage/idProblem(_:)``) is left out.
    /// - Returns: each recipient once, sorted by bytes of UTF-8.
    public func recipients(of message: Message, facts: DittoMessageFacts) -> [String] {
        var readUpTo: [[UInt8]: Date] = [:]
        for subscriber in facts.subscribers {
            if case .readAt(let date) = subscriber.subscription { readUpTo[Array(subscriber.userId.utf8)] = date }
        }
        let candidates: [String]
        if let room = facts.room, room.isDirect {
            candidates = room.document.participants
        } else {
            candidates =
                facts.subscribers.map(\.userId) + message.mentionedUserIds + facts.mentionedByUserDocuments
        }
        let recipients = candidates.distinctIds().filter { candidate in
            guard !candidate.isSameId(message.senderId), ChatMessage.idProblem(candidate) == nil else { return false }
            guard let read = readUpTo[Array(candidate.utf8)] else { return true }
            return read < message.createdOn
        }
        return recipients.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }
}
