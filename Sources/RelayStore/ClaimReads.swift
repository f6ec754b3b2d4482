import Foundation
import RelayCore

/// A claim's check of whose recipients read their message's room up to the message's time
/// (``UnreadSQL/readReached(app:room:user:time:fromDitto:)``; never a removal), on every engine: one read of
/// the room's readers per notification of the claim, not a seek of a read position per delivery. While the
/// readers since the message are few, as they are for a fresh message, they are read as a range of the
/// readers' index: up to ``readersPerRecipient`` for each of the claim's jobs of that notification.
/// When there are more (an old message, such as a retry's, that most of the room has read), each of those
/// recipients is looked up instead. Ids compare by their UTF-8 bytes, as the stores compare them
/// (``RelayCore/ChatMessage/isSameId(_:)``).
package enum ClaimReads {
    /// How many of a room's readers a claim reads per job (a recipient's device) before it looks its
    /// recipients up one by one instead: a row of the range costs a small part of a seek.
    package static let readersPerRecipient = 16

    /// A notification's message as the check reads it: its room and its time (``NewNotification/messageAt``).
    package struct Message: Sendable {
        package var roomId: String
        package var time: Date

        /// The message of `content`; nil for a removal, which no read cancels.
        package init?(_ content: NotificationContent) {
            guard content.message.removedMessageId == nil else { return nil }
            roomId = content.message.roomId
            time = content.messageAt
        }
    }

    /// Marks the jobs whose recipient read as `cancelled` (``CancelReason/read``) and returns their delivery
    /// ids in ascending order, for the store to end in the same transaction.
    /// - Parameters:
    ///   - jobs: the claim's jobs.
    ///   - userIds: each job's recipient.
    ///   - messageOfJob: each job's index in `messages`.
    ///   - messages: the claim's notifications, nil for a removal.
    ///   - ranges: for each message given, the users who read its room up to its time, at most the limit given
    ///     with it, as a range of the readers' index: one set per message, in their order (one statement for
    ///     them all, where a statement costs a round trip).
    ///   - among: those of the users given who read the message's room up to its time.
    package static func cancelRead(
        _ jobs: inout [DeliveryJob],
        userIds: [String],
        messageOfJob: [Int],
        messages: [Message?],
        ranges: (_ reads: [(message: Message, limit: Int)]) throws -> [Set<[UInt8]>],
        among: (_ message: Message, _ userIds: [String]) throws -> Set<[UInt8]>
    ) throws -> [Int64] {
        // The jobs of each message, and how many of its readers to read: a limit per job (per device).
        let groups = Dictionary(grouping: jobs.indices, by: { messageOfJob[$0] }).compactMap { index, taken in
            messages[index].map { (message: $0, limit: taken.count * readersPerRecipient, jobs: taken) }
        }
        guard !groups.isEmpty else { return [] }
        let found = try ranges(groups.map { ($0.message, $0.limit) })
        var cancelled: [Int64] = []
        for (group, range) in zip(groups, found) {
            // A user reads a room once (the key): as many readers as the limit means the range was cut short.
            let readers = range.count >= group.limit ? try among(group.message, group.jobs.map { userIds[$0] }) : range
            for job in group.jobs where readers.contains(Array(userIds[job].utf8)) {
                jobs[job].cancelReason = CancelReason.read.rawValue
                cancelled.append(jobs[job].deliveryId)
            }
        }
        return cancelled.sorted()
    }
}
