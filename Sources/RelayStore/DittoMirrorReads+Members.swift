import Foundation
import RelayCore

/// Who is in a room of an app with a stream, by DittoChat's rule (as the message rule reaches them): the
/// participants of a DM room, else the users whose subscription to the room is set.
extension DittoMirrorReads {
    /// A page of the room's members by user id: at most `limit` (at least 1) from the `offset`-th (0 first).
    /// A DM room's participants come from its one document (bounded by an event's size); a public room's
    /// subscribers are read a page at a time.
    public func dittoMembers(appId: String, roomId: String, offset: Int, limit: Int) async throws -> [String] {
        if let room = try await dittoRoom(appId: appId, roomId: roomId), room.isDirect {
            return Array(Set(room.document.participants).sorted().dropFirst(max(0, offset)).prefix(max(1, limit)))
        }
        return try await dittoSubscribers(appId: appId, roomId: roomId, offset: offset, limit: limit)
    }

    /// Whether `userId` is a member of the room (``dittoMembers(appId:roomId:offset:limit:)``'s rule).
    public func isDittoMember(appId: String, roomId: String, userId: String) async throws -> Bool {
        if let room = try await dittoRoom(appId: appId, roomId: roomId), room.isDirect {
            return room.document.participants.contains(userId)
        }
        return try await isDittoSubscriber(appId: appId, roomId: roomId, userId: userId)
    }
}
